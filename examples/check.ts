// What every example does with an answer of the typed client: the data, or a failure named by the API's error
// code, which is what a program decides on (never the message).
import { errorCode } from '../client/index.js';

export function check<T>(result: { data?: T; error?: unknown; response: Response }, what: string): T {
  if (result.data === undefined)
    throw new Error(`${what}: ${result.response.status} ${errorCode(result.error) ?? JSON.stringify(result.error)}`);
  return result.data;
}
