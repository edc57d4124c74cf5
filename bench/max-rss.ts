// Preloaded into a process the bench measures (`node --import bench/max-rss.ts
// ...`): as the process exits, its peak resident set (getrusage maxrss, KiB)
// is written to $BENCH_MAX_RSS_FILE.
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_MAX_RSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
