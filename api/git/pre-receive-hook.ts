import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The environment variable through which the git route names the refs a push may only fast-forward. */
export const fastForwardOnlyVariable = 'HEARTH_FAST_FORWARD_ONLY';

/**
 * Hearth's only git hook, in sh (a Node process would cost hundreds of milliseconds per push). Every other
 * protection rule is decided from the push commands before git starts; a force push can only be told once
 * the objects are here (they sit in git's quarantine while pre-receive runs), so the route lists the
 * protected refs being updated and this hook refuses any of them that is not a fast-forward. Its output
 * reaches the client as `remote:` lines, and a refusal leaves every ref as it was.
 */
const preReceive = `#!/bin/sh
status=0
while read -r old new ref; do
  case " $${fastForwardOnlyVariable} " in
    *" $ref "*)
      if ! git merge-base --is-ancestor "$old" "$new" 2>/dev/null; then
        echo "Hearth: branch \${ref#refs/heads/} is protected from force push" >&2
        status=1
      fi
      ;;
  esac
done
exit $status
`;

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
