#!/usr/bin/env node
// The `tidings` binary: runs the compiled CLI (npm install builds it through the `prepare` script).
import '../dist/cli/index.js'
