// The collection run once a process serves: it must give back the old space's sparse pages, not only free the
// garbage in them, and leave no gc() behind for the program.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import v8 from 'node:v8'
import vm from 'node:vm'
import { collectStartupGarbage } from '../../../src/lib/startup-garbage.js'

const MiB = 1048576

function oldSpace(): { size: number; used: number } {
  const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')!
  return { size: space.space_size, used: space.space_used_size }
}

describe('collectStartupGarbage', () => {
  it('frees the old space of garbage left among survivors and gives back the pages', () => {
    // ~20 MiB of objects that live long enough to be promoted, of which 1 in 50 survives: pages left sparse.
    const objects: { index: number; text: string }[] = []
    for (let index = 0; index < 400_000; index++) objects.push({ index, text: `object ${index}` })
    const survivors = objects.filter((_, index) => index % 50 === 0)
    objects.length = 0
    const before = oldSpace()

    collectStartupGarbage()

    const after = oldSpace()
    assert.ok(before.used - after.used > 8 * MiB, `used ${(before.used / MiB).toFixed(1)} → ${(after.used / MiB).toFixed(1)} MiB`)
    // A plain full collection frees the objects but keeps every page that still holds a survivor: size unchanged.
    assert.ok(before.size - after.size > 8 * MiB, `size ${(before.size / MiB).toFixed(1)} → ${(after.size / MiB).toFixed(1)} MiB`)
    assert.equal(survivors.length, 8000)
  })

  it('leaves no gc() on globalThis nor in contexts created later', () => {
    collectStartupGarbage()
    assert.equal((globalThis as { gc?: unknown }).gc, undefined)
    assert.equal(vm.runInNewContext('typeof gc'), 'undefined')
  })
})
