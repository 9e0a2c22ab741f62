// Baseline: the cheapest possible Koa answer on this machine.
import Koa from "koa";

const app = new Koa();
app.use((ctx) => {
  ctx.body = { hello: "world" };
});
app.listen(Number(process.env.PORT), "127.0.0.1", () => process.send?.("ready"));
// A normal exit on SIGTERM, so that a --cpu-prof (BENCH_CPU_PROF=1) profile gets written.
process.once("SIGTERM", () => process.exit(0));
