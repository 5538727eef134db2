// The app on HOST:PORT, and what a listen that fails tells the operator (a setting to fix, exit 2).
import type { Server } from 'node:http';
import type { Express } from 'express';
import { ConfigError, type Config } from '../config.js';

/**
 * Listens on HOST:PORT; the base URL is PUBLIC_BASE_URL, else the address it listens on. A port in use or an
 * address it cannot bind is a ConfigError naming the setting (exit 2), never a server listening on nothing.
 */
export async function listen(app: Express, config: Config): Promise<{ server: Server; baseUrl: string }> {
  const server: Server = await new Promise((ok, fail) => {
    const s = app.listen(config.port, config.host, (error?: Error) =>
      error ? fail(listenError(error, config)) : ok(s),
    );
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const baseUrl = config.publicBaseUrl ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
  return { server, baseUrl };
}

function listenError(error: Error, config: Config): ConfigError {
  const code = 'code' in error ? String(error.code) : '';
  const where = `${config.host}:${config.port}`;
  switch (code) {
    case 'EADDRINUSE':
      return new ConfigError(`PORT ${config.port} is in use (on ${config.host}): stop what listens there, or set PORT`);
    case 'EADDRNOTAVAIL':
      return new ConfigError(`HOST ${config.host} is not an address of this machine (EADDRNOTAVAIL): set HOST`);
    case 'EACCES':
      return new ConfigError(
        `PORT ${config.port}: no permission to listen on ${where} (EACCES): use a port above 1023`,
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ConfigError(`HOST ${config.host} does not resolve to an address (${code}): set HOST`);
    default:
      return new ConfigError(`cannot listen on ${where} (HOST, PORT): ${error.message}`);
  }
}
