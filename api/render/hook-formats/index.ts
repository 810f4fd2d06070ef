import type { HookType, WebhookRow } from '../../../db/models/hooks/webhooks.js';
import type { HookPayload } from '../hook-payloads.js';

/** Gitea's JSONPayload: the payload indented by two spaces. */
const giteaJson = (payload: HookPayload): string => JSON.stringify(payload.body, null, 2);

/**
 * The request body each hook type sends for a payload, or null when that type sends nothing for the event.
 * Every hook type Hearth accepts has its entry: a type without one fails the type check.
 */
const formats: Record<HookType, (payload: HookPayload, hook: Pick<WebhookRow, 'meta'>) => string | null> = {
  gitea: giteaJson,
  gogs: giteaJson,
};

export function formatPayload(hook: Pick<WebhookRow, 'type' | 'meta'>, payload: HookPayload): string | null {
  return formats[hook.type](payload, hook);
}
