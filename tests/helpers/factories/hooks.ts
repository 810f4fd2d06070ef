import { inTx } from '../../../db/data-source.js';
import { createHook, type HookLevel, type NewHook, type WebhookRow } from '../../../db/models/hooks/webhooks.js';
import type { TestHearth } from '../hearth.js';

export type HookOptions = Partial<Omit<NewHook, 'config'>> & { url: string; secret?: string; contentType?: 'json' | 'form' };

/** An active gitea hook at `level` sending every given event (push only by default) to `url`. */
export async function hook(h: TestHearth, level: HookLevel, options: HookOptions): Promise<WebhookRow> {
  const { url, secret, contentType, ...rest } = options;
  return inTx(h.store, (tx) => createHook(tx, h.config.security.secretKey, level, {
    type: 'gitea',
    active: true,
    ...rest,
    config: { url, content_type: contentType ?? 'json', ...(secret ? { secret } : {}) },
  }));
}
