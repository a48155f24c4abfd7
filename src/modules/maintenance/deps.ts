import type { Config } from '../../config.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/index.ts';
import type { Worker } from '../../platform/jobs/worker.ts';
import type { BillingService } from '../billing/service.ts';
import type { OrdersService } from '../orders/service.ts';
import type { RequestLog } from '../requestlog/recorder.ts';
import type { ShipmentsService } from '../shipments/service.ts';
import type { WebhooksService } from '../webhooks/service.ts';

/** What the periodic clean-ups use from other modules, and nothing more. */
export interface MaintenanceDeps {
  worker: Worker;
  db: Db;
  clock: Clock;
  config: Pick<Config, 'requestLogRetentionDays'>;
  requestLog: Pick<RequestLog, 'purgeBefore'>;
  webhooks: Pick<WebhooksService, 'purgeExpiredEvents'>;
  orders: Pick<OrdersService, 'purgeCallbackAttempts'>;
  /** Last month's invoices, issued by the first hourly run of a month (safe to repeat). */
  billing: Pick<BillingService, 'issueMonthlyInvoices'>;
  /** Asks the carrier about parcels it went quiet on, and flags parcels silent for days as lost. */
  shipments: Pick<ShipmentsService, 'checkTracking'>;
}
