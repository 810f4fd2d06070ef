import { arch, platform, version as nodeVersion } from 'node:process';
import { Router, type Request, type Response } from 'express';
import { Gauge, Registry } from 'prom-client';
import { giteaCounts, loadInstanceFigures, type InstanceFigures } from '../../db/models/instance/instance-figures.js';
import { queueFigures, type QueueFigures } from '../../db/models/instance/queue-monitor.js';
import { metricsCallerAllowed, processRegistry, startProcessMetrics } from '../../db/process/metrics.js';
import type { Deps } from '../deps.js';
import { apiVersion } from '../routes/instance/misc.js';

type Labels = Record<string, string>;

/** A registry of gauges made for one scrape from what the database answered. */
class ScrapeGauges {
  readonly registry = new Registry();

  set(name: string, help: string, series: Array<[Labels, number | null]>): void {
    const labelNames = [...new Set(series.flatMap(([labels]) => Object.keys(labels)))];
    const gauge = new Gauge({ name, help, labelNames, registers: [this.registry] });
    for (const [labels, value] of series) if (value !== null) gauge.set(labels, value);
  }
}

const ageSeconds = (since: Date | null, now: number): number | null => (since ? Math.max(0, (now - since.getTime()) / 1000) : null);

function queueGauges(gauges: ScrapeGauges, queues: QueueFigures[], now: number): void {
  gauges.set('hearth_queue_jobs', 'Live jobs of each queue by state', queues.flatMap((q) =>
    (['created', 'retry', 'active'] as const).map((state): [Labels, number] => [{ queue: q.name, state }, q[state]])));
  gauges.set('hearth_queue_oldest_waiting_seconds', 'How long the oldest job of each queue that may start now has waited (0: none waits)',
    queues.map((q) => [{ queue: q.name }, ageSeconds(q.oldestWaitingSince, now) ?? 0]));
  gauges.set('hearth_queue_jobs_ended_last_hour', 'Jobs of each queue that ended in the last hour, by outcome (all processes)', queues.flatMap((q) => [
    [{ queue: q.name, outcome: 'completed' }, q.completedLastHour],
    [{ queue: q.name, outcome: 'failed' }, q.failedLastHour],
    [{ queue: q.name, outcome: 'cancelled' }, q.cancelledLastHour],
  ] as Array<[Labels, number]>));
  gauges.set('hearth_queue_run_mean_seconds', 'Mean run time of the jobs of each queue completed in the last hour',
    queues.map((q) => [{ queue: q.name }, q.meanRunSeconds]));
  gauges.set('hearth_queue_run_p99_seconds', '99th percentile run time of the jobs of each queue completed in the last hour',
    queues.map((q) => [{ queue: q.name }, q.p99RunSeconds]));
  gauges.set('hearth_queue_workers', 'Live worker processes subscribed to each queue', queues.map((q) => [{ queue: q.name }, q.workers.length]));
}

function instanceGauges(gauges: ScrapeGauges, figures: InstanceFigures, now: number): void {
  gauges.set('gitea_build_info', 'Build information', [[{ goarch: arch, goos: platform, goversion: nodeVersion, version: apiVersion }, 1]]);
  for (const name of Object.keys(giteaCounts) as Array<keyof typeof giteaCounts>) {
    gauges.set(`gitea_${name}`, `Number of ${name}`, [[{}, figures.gitea[name]]]);
  }
  if (figures.issuesByLabel) {
    gauges.set('gitea_issues_by_label', 'Number of Issues', figures.issuesByLabel.map(({ label, count }) => [{ label }, count]));
  }
  if (figures.issuesByRepository) {
    gauges.set('gitea_issues_by_repository', 'Number of Issues', figures.issuesByRepository.map(({ repository, count }) => [{ repository }, count]));
  }
  const { hooks } = figures;
  gauges.set('hearth_webhook_deliveries_last_hour', 'Hook tasks settled in the last hour, by outcome', [
    [{ outcome: 'succeeded' }, hooks.succeeded], [{ outcome: 'failed' }, hooks.failed], [{ outcome: 'refused' }, hooks.refused],
  ]);
  gauges.set('hearth_webhook_deliveries_waiting', 'Hook tasks not yet settled', [[{}, hooks.waiting]]);
  gauges.set('hearth_webhook_oldest_waiting_seconds', 'Age of the oldest hook task not yet settled (0: none)', [[{}, ageSeconds(hooks.oldestWaitingSince, now) ?? 0]]);
  gauges.set('hearth_webhook_delivery_delay_mean_seconds', 'Mean time from a hook task\'s creation to its settling, over the last hour', [[{}, hooks.meanDelaySeconds]]);
  gauges.set('hearth_webhook_delivery_delay_p99_seconds', '99th percentile time from a hook task\'s creation to its settling, over the last hour', [[{}, hooks.p99DelaySeconds]]);
  const byKind = (pick: (m: InstanceFigures['mirrors'][number]) => number | null): Array<[Labels, number | null]> =>
    figures.mirrors.map((m) => [{ kind: m.kind }, pick(m)]);
  gauges.set('hearth_mirrors', 'Pull and push mirrors', byKind((m) => m.mirrors));
  gauges.set('hearth_mirrors_failing', 'Mirrors whose last sync failed', byKind((m) => m.failing));
  gauges.set('hearth_mirrors_overdue', 'Mirrors past their due time by two sweeps and not being synced', byKind((m) => m.overdue));
  gauges.set('hearth_mirror_failed_syncs', 'Failed syncs of the mirrors there are now, since each was made', byKind((m) => m.failedSyncs));
  gauges.set('hearth_mirror_oldest_sync_age_seconds', 'Time since the least recent last sync ended (no sample before any sync)',
    byKind((m) => ageSeconds(m.oldestSyncAt, now)));
  gauges.set('hearth_mirror_slowest_last_sync_seconds', 'The longest last sync among the mirrors', byKind((m) => m.slowestSyncSeconds));
}

/**
 * Reads shared by the scrapes that wait for them: a scrape joins the next read to start, never one that started before
 * it arrived, so every answer holds figures read after its request came, while any number of scrapers at once cost one
 * read in flight and one waiting.
 */
export function coalesced<T>(load: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | null = null;
  let next: Promise<T> | null = null;
  const start = (): Promise<T> => {
    const read = load().finally(() => {
      if (running === read) running = null;
    });
    running = read;
    return read;
  };
  return () => {
    if (next) return next;
    if (!running) return start();
    const after = running.then(() => undefined, () => undefined).then(() => {
      next = null;
      return start();
    });
    next = after;
    return after;
  };
}

/**
 * `GET /metrics` in Prometheus's text format when `[metrics] ENABLED` (as Gitea: otherwise not served, 404), behind the
 * bearer `[metrics] TOKEN` when set. This process's own figures (requests, git transfers, Node) are joined by what the
 * database answers now in two statements (the queues; everything else), so any web process tells the whole instance.
 */
export function metricsEndpoint(deps: Deps): Router {
  const router = Router();
  const { enabled, token, enabledIssueByLabel, enabledIssueByRepository } = deps.config.metrics;
  if (!enabled) return router;
  startProcessMetrics();
  const readDatabaseFigures = coalesced(async (): Promise<string> => {
    const [queues, instance] = await Promise.all([
      queueFigures(deps.db),
      loadInstanceFigures(deps.db, { issuesByLabel: enabledIssueByLabel, issuesByRepository: enabledIssueByRepository }),
    ]);
    const gauges = new ScrapeGauges();
    const now = Date.now();
    queueGauges(gauges, queues, now);
    instanceGauges(gauges, instance, now);
    return gauges.registry.metrics();
  });
  router.get('/metrics', async (req: Request, res: Response) => {
    if (!metricsCallerAllowed(req.headers.authorization, token || undefined)) {
      res.status(401).set('WWW-Authenticate', 'Bearer').type('text/plain').send('Unauthorized');
      return;
    }
    const [own, database] = await Promise.all([processRegistry.metrics(), readDatabaseFigures()]);
    // the two registries hold no name in common: their texts join as they are
    res.type(processRegistry.contentType).send(`${own}\n${database}`);
  });
  return router;
}
