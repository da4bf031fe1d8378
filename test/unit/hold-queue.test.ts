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

  it("runs at most inFlight holds of all inventories at once, in arrival order, after their inventories' turns", async () => {
    const queue = createHoldQueue({ perInventory: 2, inFlight: 3 })
    let running = 0
    let most = 0
    const order: string[] = []
    const names = ['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'c2', 'b3']
    const gates = names.map(gate)
    const holds = names.map((name, n) =>
      queue.inTurn([name.slice(0, 1)], async () => {
        running++
        most = Math.max(most, running)
        order.push(name)
        await gates[n]!.opened
        running--
        return name
      }),
    )
    await new Promise((resolve) => setImmediate(resolve))
    // a1, b1, c1 fly; a2, b2, c2 have their inventory's turn and wait for one in flight; a3, b3 wait for their inventory's.
    expect(queue.state()).toEqual({ running: 3, waiting: 5, inventories: 3 })
    for (const g of gates) {
      g.open()
      await new Promise((resolve) => setImmediate(resolve))
    }
    expect(await Promise.all(holds)).toEqual(names)
    expect(most).toBe(3)
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'c2', 'a3', 'b3'])
    expect(queue.state()).toEqual({ running: 0, waiting: 0, inventories: 0 })
  })

  it('never deadlocks holds of several inventories asked in opposite orders, one in flight', async () => {
    const queue = createHoldQueue({ perInventory: 2, inFlight: 1 })
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, n) =>
        queue.inTurn(n % 3 === 0 ? ['x', 'y'] : n % 3 === 1 ? ['y', 'x'] : ['y'], async () => {
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

  it('answers each member of a group as soon as the group knows its outcome, and the rest when it ends (issue 45)', async () => {
    const queue = createHoldQueue({ perInventory: 1 })
    const turn = gate()
    const held = queue.inTurn(['a'], () => turn.opened)
    const rest = gate()
    const answered: string[] = []
    const run = async (members: string[], answer: (n: number, outcome: { value: string } | { error: unknown }) => void) => {
      answer(0, { value: `${members[0]} done` })
      await rest.opened
      answer(2, { error: new Error(`${members[2]} refused`) })
    }
    const members = ['x', 'y', 'z'].map((member) =>
      queue.inGroup('k', ['a'], member, run).then(
        (value) => answered.push(String(value)),
        (error: Error) => answered.push(error.message),
      ),
    )
    turn.open()
    await held
    await members[0]
    // The first is answered while the group goes on.
    expect(answered).toEqual(['x done'])
    rest.open()
    await Promise.all(members)
    expect(answered).toEqual(['x done', 'z refused', 'a group left a member unanswered'])
    expect(queue.state()).toEqual({ running: 0, waiting: 0, inventories: 0 })
  })
})
