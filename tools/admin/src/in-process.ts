// Runs the admin command inside the calling process, as the integration tests of other packages
// do against the services they started: same arguments, same output and exit code, no child
// process (starting one costs Node's start-up and the imports on every run).
import { Readable, Writable } from "node:stream";
import { main } from "./cli.ts";

function collector(): { stream: Writable; text: () => string } {
  let text = "";
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString("utf8");
      done();
    },
  });
  return { stream, text: () => text };
}

export interface AdminRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `pnpm admin <args>` with exactly the environment `env` (nothing of this process's own) and
 * `stdin` as its input: the exit code and what it wrote to stdout and stderr.
 */
export async function runAdminCommand(args: string[], options: { env: Record<string, string | undefined>; stdin?: string; cwd?: string }): Promise<AdminRun> {
  const stdout = collector();
  const stderr = collector();
  const code = await main(args, {
    stdin: Readable.from([options.stdin ?? ""]),
    stdout: stdout.stream,
    stderr: stderr.stream,
    env: options.env,
    cwd: options.cwd ?? process.cwd(),
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/**
 * `pnpm admin <args>` against the services named in `env` (CONTENT_URL, PLAYERS_URL,
 * ADMIN_TOKEN); resolves with the parsed JSON it printed, and rejects with its exit code and
 * output when it exits non-zero.
 */
export async function runAdmin<T>(args: string[], env: Record<string, string | undefined>, stdin = ""): Promise<T> {
  const run = await runAdminCommand(args, { env, stdin });
  if (run.code !== 0) throw new Error(`admin ${args.join(" ")} exited ${run.code}: ${run.stdout}${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}
