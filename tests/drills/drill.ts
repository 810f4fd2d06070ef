import type { ExecutionContext } from 'ava';
import type { TestHearth } from '../helpers/hearth.js';

/** What a drill did and what it found; a finding is anything the drill expected that did not hold. */
export class DrillLog {
  readonly findings: string[] = [];
  checks = 0;
  readonly figures: Record<string, number | string> = {};

  constructor(readonly name: string, private readonly print: (line: string) => void) {}

  step(text: string): void {
    this.print(`[${this.name}] ${text}`);
  }

  /** One expectation: counted, and a finding (printed) when it does not hold. */
  check(ok: boolean, what: string, detail = ''): boolean {
    this.checks++;
    if (!ok) {
      const finding = detail ? `${what}: ${detail}` : what;
      this.findings.push(finding);
      this.print(`[${this.name}] FINDING ${finding}`);
    }
    return ok;
  }

  figure(name: string, value: number | string): void {
    this.figures[name] = value;
    this.print(`[${this.name}] ${name}: ${value}`);
  }
}

/** What a drill runs against: Hearth's web app and actors on real sockets, a real PostgreSQL, real git. */
export interface DrillEnv {
  /** A fresh Hearth (its own database) with these HEARTH__SECTION__KEY settings; stopped when the drill ends. */
  startHearth(settings?: Record<string, string>): Promise<TestHearth>;
  /** Runs `close` when the drill ends. */
  teardown(close: () => Promise<void> | void): void;
  log: DrillLog;
  /** The short version (npm test): fewer targets, shorter timeouts. */
  short: boolean;
}

/** Waits until `probe` answers something truthy, or `ms` pass (then its last answer). */
export async function until<T>(ms: number, probe: () => Promise<T>, every = 100): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}

/** A DrillEnv for an ava test: its teardown, its log. */
export function avaEnv(t: ExecutionContext, name: string, start: (t: ExecutionContext, settings: Record<string, string>) => Promise<TestHearth>): DrillEnv {
  return {
    startHearth: (settings = {}) => start(t, settings),
    teardown: (close) => t.teardown(close),
    log: new DrillLog(name, (line) => t.log(line)),
    short: true,
  };
}
