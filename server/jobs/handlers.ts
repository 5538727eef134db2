// Every job kind the service runs, registered in one place (webhook deliveries, automation timers… arrive with
// their issues and add themselves here).
import { JobRegistry } from './registry.js';

export function createJobRegistry(): JobRegistry {
  return new JobRegistry();
}
