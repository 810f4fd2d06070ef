import { mkdtemp, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** The environment variable through which the git route names the refs a push may only fast-forward. */
export const fastForwardOnlyVariable = 'HEARTH_FAST_FORWARD_ONLY';
/** The refs whose pushed paths the route decides on, and the directory through which the hook asks it. */
const fileCheckRefsVariable = 'HEARTH_FILE_CHECK_REFS';
const fileCheckDirVariable = 'HEARTH_FILE_CHECK_DIR';

/**
 * Hearth's only git hook, in sh (a Node process would cost hundreds of milliseconds per push). Every other
 * protection rule is decided from the push commands before git starts; what needs the pushed objects is
 * decided here, while they sit in git's quarantine: a protected ref being updated must be a fast-forward,
 * and for the refs the route names the hook writes the paths the update changes (`git diff --name-only -z`,
 * as Gitea's pre-receive reads them) into the route's directory, then waits for its answer: one line per
 * refusal, nothing when the push may go on (answerPathChecks). Its output reaches the client as `remote:`
 * lines, and a refusal leaves every ref as it was.
 */
const preReceive = `#!/bin/sh
status=0
asked=""
n=0
while read -r old new ref; do
  case " $${fastForwardOnlyVariable} " in
    *" $ref "*)
      if ! git merge-base --is-ancestor "$old" "$new" 2>/dev/null; then
        echo "Hearth: branch \${ref#refs/heads/} is protected from force push" >&2
        status=1
      fi
      ;;
  esac
  case " $${fileCheckRefsVariable} " in
    *" $ref "*)
      n=$((n + 1))
      if ! git diff --name-only -z "$old" "$new" -- > "$${fileCheckDirVariable}/$n.paths"; then
        echo "Hearth: the changed files of \${ref#refs/heads/} could not be read" >&2
        status=1
      fi
      asked="$asked$n $ref
"
      ;;
  esac
done
if [ "$status" = 0 ] && [ -n "$asked" ]; then
  printf '%s' "$asked" > "$${fileCheckDirVariable}/request.tmp" && mv "$${fileCheckDirVariable}/request.tmp" "$${fileCheckDirVariable}/request"
  waited=0
  while [ ! -e "$${fileCheckDirVariable}/answer" ]; do
    if [ "$waited" -ge 1200 ]; then
      echo "Hearth: the changed files of this push could not be checked" >&2
      exit 1
    fi
    sleep 0.05 2>/dev/null || sleep 1
    waited=$((waited + 1))
  done
  if [ -s "$${fileCheckDirVariable}/answer" ]; then
    while IFS= read -r line; do echo "Hearth: $line" >&2; done < "$${fileCheckDirVariable}/answer"
    status=1
  fi
fi
exit $status
`;

/** The route's side of a push whose changed paths it decides on: the hook's environment, and `stop` once git is done. */
export interface PathChecks {
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Answers the hook's question for `refs`: `refusal(ref, paths)` for each ref it names, with the paths its update
 * changes, and the refusals (or nothing) as the answer. The directory is polled while git runs and removed by `stop`.
 */
export async function answerPathChecks(refs: string[], refusal: (ref: string, paths: string[]) => string | null): Promise<PathChecks> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'hearth-push-'));
  let answering: Promise<void> | null = null;
  const reply = async (refusals: string[]): Promise<void> => {
    await writeFile(path.join(dir, 'answer.tmp'), refusals.map((line) => `${line.replace(/[\r\n]+/g, ' ')}\n`).join(''));
    await rename(path.join(dir, 'answer.tmp'), path.join(dir, 'answer'));
  };
  const answer = async (request: string): Promise<void> => {
    const refusals: string[] = [];
    for (const line of request.split('\n').filter(Boolean)) {
      const [n, ref] = line.split(' ');
      if (!refs.includes(ref) || !/^\d+$/.test(n)) continue;
      const paths = (await readFile(path.join(dir, `${n}.paths`), 'utf8')).split('\0').filter(Boolean);
      const refused = refusal(ref, paths);
      if (refused) refusals.push(refused);
    }
    await reply(refusals);
  };
  const poll = setInterval(() => {
    if (answering) return;
    answering = readFile(path.join(dir, 'request'), 'utf8').then(
      (request) => {
        clearInterval(poll);
        // a question that cannot be answered is a refusal, never an accepted push
        return answer(request).catch(() => reply(['the changed files of this push could not be checked'])).catch(() => undefined);
      },
      () => {
        answering = null;
      },
    );
  }, 20);
  return {
    env: { [fileCheckRefsVariable]: refs.join(' '), [fileCheckDirVariable]: dir },
    stop: async () => {
      clearInterval(poll);
      await answering;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Writes the hooks directory receive-pack is pointed at with core.hooksPath (repositories' own hooks never run). */
export async function installHooks(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, 'pre-receive');
  const current = await readFile(file, 'utf8').catch(() => null);
  if (current !== preReceive) {
    const staging = `${file}.${process.pid}.tmp`;
    await writeFile(staging, preReceive, { mode: 0o755 });
    await rename(staging, file);
  }
  return dir;
}
