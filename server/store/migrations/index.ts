// Forward-only migrations, applied in name order at start. Never edit one that has shipped: add the next.
import type { Migration } from 'kysely';
import * as m0001 from './0001_foundation.js';
import * as m0002jobs from './0002_jobs.js';
import * as m0003console from './0003_console.js';
import * as m0004tags from './0004_tags.js';
import * as m0005contacts from './0005_contacts.js';
import * as m0006messaging from './0006_messaging.js';
import * as m0007webhooks from './0007_webhooks.js';
import * as m0008jobWaits from './0008_job_waits.js';
import * as m0009tagAndPhoneKeys from './0009_tag_and_phone_keys.js';
import * as m0010workflows from './0010_workflows.js';
import * as m0011runs from './0011_runs.js';
import * as m0012workflowMedia from './0012_workflow_media.js';
import * as m0013consoleVariables from './0013_console_variables.js';
import * as m0014trackedLinks from './0014_tracked_links.js';
import * as m0015invokeCalls from './0015_invoke_calls.js';
import * as m0016sandboxSpreadsheets from './0016_sandbox_spreadsheets.js';
import * as m0017whatsappHandoffs from './0017_whatsapp_handoffs.js';
import * as m0018jobWorkers from './0018_job_workers.js';
import * as m0019messagePageIndex from './0019_message_page_index.js';
import * as m0020failedJobsIndex from './0020_failed_jobs_index.js';
import * as m0021mediaDetectedFormat from './0021_media_detected_format.js';
import * as m0022whatsappCloud from './0022_whatsapp_cloud.js';
import * as m0023instagram from './0023_instagram.js';

export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_jobs': m0002jobs,
  '0003_console': m0003console,
  '0004_tags': m0004tags,
  '0005_contacts': m0005contacts,
  '0006_messaging': m0006messaging,
  '0007_webhooks': m0007webhooks,
  '0008_job_waits': m0008jobWaits,
  '0009_tag_and_phone_keys': m0009tagAndPhoneKeys,
  '0010_workflows': m0010workflows,
  '0011_runs': m0011runs,
  '0012_workflow_media': m0012workflowMedia,
  '0013_console_variables': m0013consoleVariables,
  '0014_tracked_links': m0014trackedLinks,
  '0015_invoke_calls': m0015invokeCalls,
  '0016_sandbox_spreadsheets': m0016sandboxSpreadsheets,
  '0017_whatsapp_handoffs': m0017whatsappHandoffs,
  '0018_job_workers': m0018jobWorkers,
  '0019_message_page_index': m0019messagePageIndex,
  '0020_failed_jobs_index': m0020failedJobsIndex,
  '0021_media_detected_format': m0021mediaDetectedFormat,
  '0022_whatsapp_cloud': m0022whatsappCloud,
  '0023_instagram': m0023instagram,
};
