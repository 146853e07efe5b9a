// The webhook receiver (bench/lib/webhook-receiver.ts) in a process of its own, forked by the benchmark with its
// options as the first argument; it answers the benchmark's questions over IPC.
import { createReceiverCore, type FromChild, type ReceiverOptions, type ToChild } from './webhook-receiver.js'

const core = createReceiverCore(JSON.parse(process.argv[2] ?? '{}') as ReceiverOptions)
const send = (message: FromChild) => process.send!(message)

process.on('message', (message: ToChild) => {
  switch (message.type) {
    case 'secret':
      core.setSecret(message.path, message.secret)
      return send({ type: 'answer', id: message.id, value: undefined })
    case 'counts':
      return send({ type: 'answer', id: message.id, value: core.counts() })
    case 'events':
      return send({ type: 'answer', id: message.id, value: core.events() })
    case 'stop':
      void core.close().then(() => {
        send({ type: 'answer', id: message.id, value: undefined })
        process.disconnect()
      })
  }
})
// The benchmark went away: nothing more to receive for.
process.on('disconnect', () => void core.close().then(() => process.exit(0)))

send({ type: 'listening', port: await core.listen() })
