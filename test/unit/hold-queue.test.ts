import { describe, expect, it } from 'vitest'
import { createHoldQueue } from '../../src/domain/inventory/hold-queue.js'

/** A promise and its resolver, to hold a work open until the test lets it end. */
function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => {
    open = resolve
  })
  return { opened, open }
}

describe('the holds of an inventory take turns (issue 31)', () => {
  it('runs at most perInventory holds of one inventory at once, in arrival order, and others at once', async () => {
    const queue = createHoldQueue({ perInventory: 2 })
    let running = 0
    let most = 0
    const order: number[] = []
    const gates = Array.from({ length: 8 }, gate)
    const holds = gates.map((g, n) =>
      queue.inTurn(['a'], async () => {
        running++
        most = Math.max(most, running)
        order.push(n)
        await g.opened
        running--
        return n
      }),
    )
    // Another inventory is not held up by a's queue.
    expect(await queue.inTurn(['b'], async () => 'b')).toBe('b')
    await Promise.resolve()
    expect(queue.state()).toEqual({ running: 2, waiting: 6, inventories: 1 })
    for (const g of gates) {
      g.open()
      await new Promise((resolve) => setImmediate(resolve))
    }
    expect(await Promise.all(holds)).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
    expect(most).toBe(2)
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
    // Nothing is kept once every turn is given back.
    expect(queue.state()).toEqual({ running: 0, waiting: 0, inventories: 0 })
  })

  it('never deadlocks two holds of the same inventories asked in opposite orders, one turn each', async () => {
    const queue = createHoldQueue({ perInventory: 1 })
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, n) =>
        queue.inTurn(n % 2 === 0 ? ['x', 'y'] : ['y', 'x'], async () => {
          await new Promise((resolve) => setImmediate(resolve))
          return n
        }),
      ),
    )
    expect(results).toHaveLength(50)
    expect(queue.state()).toEqual({ running: 0, waiting: 0, inventories: 0 })
  })

  it('gives the turn back when the hold fails', async () => {
    const queue = createHoldQueue({ perInventory: 1 })
    await expect(
      queue.inTurn(['a'], async () => {
        throw new Error('refused')
      }),
    ).rejects.toThrow('refused')
    expect(await queue.inTurn(['a'], async () => 'next')).toBe('next')
    expect(queue.state()).toEqual({ running: 0, waiting: 0, inventories: 0 })
  })
})
