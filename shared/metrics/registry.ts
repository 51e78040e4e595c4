// One Prometheus registry per process runtime (docs/operating/metrics.md). Not the
// prom-client global: tests start several APIs in one process, and each must
// count only its own traffic.
import { collectDefaultMetrics, Registry } from 'prom-client';

/** prom-client's text exposition format, for the Content-Type of /metrics. */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** A registry with the default process metrics (CPU, memory, event loop lag, GC) and a `process` label (api or worker). */
export function createRegistry(processName: 'api' | 'worker'): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ process: processName });
  collectDefaultMetrics({ register: registry });
  return registry;
}
