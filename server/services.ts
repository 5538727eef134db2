// The services a server process shares between its API and its job workers, built in one place: main.ts builds
// them once per process (and the test harness once per app), then hands them to the app and to the job registry.
// Routes and job handlers receive them; none of them picks a default of its own.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { FieldPathEvaluator } from './engine/blocks/invoke/field-evaluator.js';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { GraphClient } from './channels/graph/client.js';
import { ProviderRegistry } from './channels/registry.js';
import { GraphInstagramAccount, type InstagramAccountApi } from './channels/instagram/account.js';
import { SandboxProvider } from './channels/sandbox.js';
import { GraphWhatsAppAccount, type WhatsAppCloudAccountApi } from './channels/whatsapp-cloud/account.js';
import { WhatsAppCloudProvider } from './channels/whatsapp-cloud/provider.js';
import { InstagramProvider } from './channels/instagram/provider.js';
import {
  instagramCredentials,
  mediaAddresses,
  numberCredentials,
  storedMediaSource,
} from './domain/channels/provider-ports.js';
import type { DB } from './store/schema.js';
import type { Config } from './config.js';
import { keyringOf, type Keyring } from './domain/channels/credentials.js';
import type { MessagingProvider } from './domain/messaging/delivery.js';
import { sandboxArrangements } from './domain/sandbox/outcomes.js';
import type { SpreadsheetProvider } from './spreadsheets/provider.js';
import { SandboxSpreadsheets } from './spreadsheets/sandbox.js';
import { LocalDiskStorage, type MediaStorage } from './media/storage.js';
import { invokeTargetPolicy, targetPolicy, type TargetPolicy } from './webhooks/targets.js';

export interface Services {
  /**
   * The channel layer messages go out through: the sandbox, which acts like instagram and whatsapp, built with
   * the port to its arranged answers (domain/sandbox/outcomes.ts), which it takes in the send's own transaction.
   */
  provider: MessagingProvider;
  /** The spreadsheet layer sheets blocks write through: the sandbox spreadsheets, kept in the database. */
  spreadsheets: SpreadsheetProvider;
  /** Where media bytes live: a directory, `DATA_DIR/media`. */
  storage: MediaStorage;
  /** The webhook URL rules at registration and at send (config.webhookDevTargets). */
  webhookTargets: TargetPolicy;
  /** The invoke block's address rules at call time (config.invokeDevTargets). */
  invokeTargets: TargetPolicy;
  /** Reads invoke answers' fields in a worker thread, within a budget (issue 33: no tenant holds the event loop). */
  fieldPaths: FieldPathEvaluator;
  /**
   * Seals and opens channel access tokens (domain/channels/credentials.ts): start-up's keyring (main.ts, from
   * CHANNEL_CREDENTIALS_KEY or DATA_DIR/channel-credentials-key, start/data-dir.ts).
   */
  channelKeys: Keyring;
  /** The Graph API's reads of a WhatsApp Cloud number (attach, template sync): GRAPH_API_BASE_URL, its version. */
  whatsAppCloudAccount: WhatsAppCloudAccountApi;
  /**
   * The Graph API calls of an Instagram account's attach: Instagram Login's on INSTAGRAM_GRAPH_BASE_URL, Facebook
   * Login's (a Page token) on GRAPH_API_BASE_URL, both at GRAPH_API_VERSION.
   */
  instagramAccount: InstagramAccountApi;
}

/** What the real channels reach of the process: its database (a number's sealed token, media bytes) and log. */
export interface ChannelReach {
  db: Kysely<DB>;
  logger: Logger;
}

let processKey: string | undefined;

/**
 * Services built without start-up's keyring (tests, tools): CHANNEL_CREDENTIALS_KEY, else a key of this process
 * alone, shared by every app it builds (two apps on one database open each other's tokens), gone at exit.
 */
function keyringWithoutStartUp(config: Pick<Config, 'channelCredentialsKey' | 'channelCredentialsOldKeys'>): Keyring {
  processKey ??= randomBytes(32).toString('base64');
  return keyringOf(config.channelCredentialsKey ?? processKey, config.channelCredentialsOldKeys);
}

/** The services of `config`; `replace` swaps some of them (tests: a broken storage, a stub resolver, a CA). */
export function createServices(
  config: Pick<
    Config,
    | 'dataDir'
    | 'webhookDevTargets'
    | 'invokeDevTargets'
    | 'channelCredentialsKey'
    | 'channelCredentialsOldKeys'
    | 'graphApiBaseUrl'
    | 'graphApiVersion'
    | 'instagramGraphBaseUrl'
    | 'publicBaseUrl'
    | 'instagramCdnBaseUrl'
  >,
  replace: Partial<Services> = {},
  /** Without it (tools, unit tests) only the sandbox carries messages. */
  reach?: ChannelReach,
): Services {
  const graph = new GraphClient({ baseUrl: config.graphApiBaseUrl, version: config.graphApiVersion });
  const instagramGraph = new GraphClient({ baseUrl: config.instagramGraphBaseUrl, version: config.graphApiVersion });
  const storage = replace.storage ?? new LocalDiskStorage(join(config.dataDir, 'media'));
  const channelKeys = replace.channelKeys ?? keyringWithoutStartUp(config);
  const whatsappCloud =
    reach &&
    new WhatsAppCloudProvider<Kysely<DB>>({
      graph,
      credentials: numberCredentials(reach.db, channelKeys),
      media: storedMediaSource(reach.db, storage),
      logger: reach.logger,
    });
  const instagram =
    reach &&
    new InstagramProvider<Kysely<DB>>({
      instagramGraph,
      facebookGraph: graph,
      credentials: instagramCredentials(reach.db, channelKeys),
      media: storedMediaSource(reach.db, storage),
      addresses: mediaAddresses(reach.db, config.publicBaseUrl),
      logger: reach.logger,
      ...(config.instagramCdnBaseUrl === undefined ? {} : { cdnBaseUrl: config.instagramCdnBaseUrl }),
    });
  const providers = {
    sandbox: new SandboxProvider(sandboxArrangements),
    ...(whatsappCloud ? { whatsapp_cloud: whatsappCloud } : {}),
    ...(instagram ? { instagram_graph: instagram } : {}),
  };
  return {
    provider: replace.provider ?? new ProviderRegistry<Kysely<DB>>(providers),
    spreadsheets: replace.spreadsheets ?? new SandboxSpreadsheets(),
    storage,
    webhookTargets: replace.webhookTargets ?? targetPolicy(config),
    invokeTargets: replace.invokeTargets ?? invokeTargetPolicy(config),
    fieldPaths: replace.fieldPaths ?? new FieldPathEvaluator(),
    channelKeys,
    whatsAppCloudAccount: replace.whatsAppCloudAccount ?? new GraphWhatsAppAccount(graph),
    instagramAccount:
      replace.instagramAccount ?? new GraphInstagramAccount({ instagram: instagramGraph, facebook: graph }),
  };
}
