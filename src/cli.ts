import { runPodctl } from './cli/program.ts';

// Files this process creates (the embedded database, blobs, secrets) are its user's alone.
process.umask(0o077);

const code = await runPodctl(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
// A failed command may leave handles open (a half-started database); it ends here all the same.
if (code !== 0) process.exit(code);
