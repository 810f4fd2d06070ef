import type { NodeUsage } from '../../db/models/instance/node-usage.js';

/**
 * The NodeInfo definition (nodeinfo 2.1). Zero counts are left out, as Gitea's `omitempty` leaves them. Unlike Gitea
 * with federation on, Hearth names no protocol and no outbound service: it speaks neither ActivityPub nor RSS.
 */
export interface ApiNodeInfo {
  version: '2.1';
  software: { name: string; version: string; repository?: string; homepage?: string };
  protocols: string[];
  services: { inbound: string[]; outbound: string[] };
  openRegistrations: boolean;
  usage: { users: { total?: number; activeHalfyear?: number; activeMonth?: number }; localPosts?: number; localComments?: number };
  metadata: Record<string, never>;
}

const positive = (n: number): number | undefined => (n > 0 ? n : undefined);

export function renderNodeInfo(usage: NodeUsage, version: string): ApiNodeInfo {
  return {
    version: '2.1',
    software: { name: 'hearth', version },
    protocols: [],
    services: { inbound: [], outbound: [] },
    openRegistrations: false,
    usage: {
      users: { total: positive(usage.users.total), activeHalfyear: positive(usage.users.activeHalfyear), activeMonth: positive(usage.users.activeMonth) },
      localPosts: positive(usage.localPosts),
    },
    metadata: {},
  };
}
