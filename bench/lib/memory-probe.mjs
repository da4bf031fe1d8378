// Loaded into the measured server by `npm run bench -- --only=memory` (`node --import`): on
// SIGWINCH it appends one JSON line to $BENCH_MEMORY_PROBE saying where the process's memory is,
// as V8 sees it. It forces no garbage collection and does nothing until asked.
import { appendFileSync } from 'node:fs'
import v8 from 'node:v8'

const file = process.env.BENCH_MEMORY_PROBE
const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10

if (file) {
  process.on('SIGWINCH', () => {
    const usage = process.memoryUsage()
    appendFileSync(
      file,
      `${JSON.stringify({
        heap_total: mb(usage.heapTotal),
        heap_used: mb(usage.heapUsed),
        // WebAssembly memories count here (their whole size, resident or not), array buffers too.
        external: mb(usage.external),
        array_buffers: mb(usage.arrayBuffers),
        code: mb(v8.getHeapCodeStatistics().code_and_metadata_size),
      })}\n`,
    )
  })
}
