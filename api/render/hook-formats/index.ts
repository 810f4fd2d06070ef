import type { HookType, WebhookRow } from '../../../db/models/hooks/webhooks.js';
import type { HookPayload } from '../hook-payloads.js';
import { convert, indentJson, type Convertor, type FormatContext } from './convertor.js';
import { dingtalkConvertor } from './dingtalk.js';
import { discordConvertor } from './discord.js';
import { feishuConvertor } from './feishu.js';
import { matrixConvertor } from './matrix.js';
import { msteamsConvertor } from './msteams.js';
import { packagistConvertor } from './packagist.js';
import { slackConvertor } from './slack.js';
import { telegramConvertor } from './telegram.js';
import { wechatworkConvertor } from './wechatwork.js';

/** Gitea's JSONPayload: the payload indented by two spaces. */
const giteaJson = (payload: HookPayload): string => indentJson(payload.body);

const chat = <T>(make: (ctx: FormatContext) => Convertor<T>) => (payload: HookPayload, ctx: FormatContext): string =>
  indentJson(convert(make(ctx), payload));

/**
 * The request body each hook type sends for a payload, or null when that type sends nothing for the event.
 * Every hook type Hearth accepts has its entry: a type without one fails the type check.
 */
const formats: Record<HookType, (payload: HookPayload, ctx: FormatContext) => string | null> = {
  gitea: giteaJson,
  gogs: giteaJson,
  slack: chat(slackConvertor),
  discord: chat(discordConvertor),
  msteams: chat(msteamsConvertor),
  matrix: chat(matrixConvertor),
  dingtalk: chat(dingtalkConvertor),
  telegram: chat(telegramConvertor),
  feishu: chat(feishuConvertor),
  wechatwork: chat(wechatworkConvertor),
  packagist: chat(packagistConvertor),
};

/** `appUrl` is the instance's root URL (Gitea's setting.AppURL), which chat messages link users to. */
export function formatPayload(hook: Pick<WebhookRow, 'type' | 'meta'>, payload: HookPayload, appUrl: string): string | null {
  return formats[hook.type](payload, { appUrl, meta: hook.meta ?? {} });
}
