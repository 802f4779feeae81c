import type { Clock } from './clock.js';
import { systemClock } from './clock.js';
import type { Logger } from './logger.js';
import { silentLogger } from './logger.js';
import type { Metrics } from './metrics.js';
import { createMetrics } from './metrics.js';
import type { Shutdown } from './shutdown.js';
import { createShutdown } from './shutdown.js';

/** The bag every factory receives (docs/architecture.md convention 2). */
export interface Common {
  logger: Logger;
  metrics: Metrics;
  clock: Clock;
  shutdown: Shutdown;
}

/** Builds a Common, filling what is not given with quiet defaults (handy in tests). */
export function createCommon(partial: Partial<Common> = {}): Common {
  const logger = partial.logger ?? silentLogger();
  return {
    logger,
    metrics: partial.metrics ?? createMetrics(),
    clock: partial.clock ?? systemClock,
    shutdown: partial.shutdown ?? createShutdown((name, err) => logger.error({ err, step: name }, 'shutdown step failed')),
  };
}
