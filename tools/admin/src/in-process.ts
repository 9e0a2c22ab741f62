// Runs the admin command inside the calling process, as the integration tests of other packages
// do against the services they started: same arguments, same JSON output, no child process.
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

/**
 * `pnpm admin <args>` against the services named in `env` (CONTENT_URL, PLAYERS_URL,
 * ADMIN_TOKEN); resolves with the parsed JSON it printed, and rejects with its exit code and
 * output when it exits non-zero.
 */
export async function runAdmin<T>(args: string[], env: Record<string, string | undefined>, stdin = ""): Promise<T> {
  const stdout = collector();
  const stderr = collector();
  const code = await main(args, { stdin: Readable.from([stdin]), stdout: stdout.stream, stderr: stderr.stream, env, cwd: process.cwd() });
  if (code !== 0) throw new Error(`admin ${args.join(" ")} exited ${code}: ${stdout.text()}${stderr.text()}`);
  return JSON.parse(stdout.text()) as T;
}
