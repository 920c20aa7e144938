import { runWorld } from './sim/world/runWorld.js';

for (let seed = 1; seed <= 3000; seed++) {
  const r = await runWorld({ seed });
  if (r.sharedCommits.cancelled > 0)
    console.log(
      seed,
      JSON.stringify(r.sharedCommits),
      r.config.batchSize,
      r.config.events,
      r.config.fifo,
      r.failures.length,
    );
}
