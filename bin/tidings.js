#!/usr/bin/env node
// The `tidings` binary: runs the compiled CLI (npm install builds it through the `prepare` script). The young
// generation is held small before the CLI's modules load, and released once the command runs (idle memory).
import { holdYoungGeneration } from '../dist/lib/young-generation.js'

holdYoungGeneration()
await import('../dist/cli/index.js')
