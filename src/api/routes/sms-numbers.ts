// The numbers of a mailing list: API.md 4.11 (`/sms/numbers…`, `/addressbooks/{id}/phones/variable`), with
// the answers as objects, not the arrays API.md shows (COMPAT.md "SMS and Viber" 1).
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import * as numbers from '../../services/audience/list-numbers.js'
import type { Deps } from '../../services/types.js'
import { toWireDate } from '../../lib/wire-date.js'
import { IdParams, ResultTrue, responses } from '../schemas/common.js'
import * as S from '../schemas/sms-audience.js'

const tags = ['SMS']

export function smsNumberRoutes(deps: Deps) {
  return async (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

    app.post(
      '/sms/numbers',
      { schema: { tags, summary: 'Add numbers to a mailing list', body: S.AddNumbersBody, response: responses(S.AddNumbersResult, 404, 422) } },
      async (request) => ({ result: true, counters: await numbers.addNumbers(deps, request.accountId, request.body.addressBookId, request.body.phones) }),
    )

    app.post(
      '/sms/numbers/variables',
      {
        schema: { tags, summary: 'Add numbers with variables (numbers already there get the variables merged)', body: S.AddNumbersWithVariablesBody, response: responses(S.AddNumbersResult, 404, 422) },
      },
      async (request) => ({ result: true, counters: await numbers.addNumbersWithVariables(deps, request.accountId, request.body.addressBookId, request.body.phones) }),
    )

    app.put(
      '/sms/numbers',
      { schema: { tags, summary: 'Set variables of numbers of a mailing list', body: S.UpdateNumbersBody, response: responses(S.UpdatedNumbersResult, 404, 422) } },
      async (request) => {
        const { addressBookId, phones, variables } = request.body
        return { result: true, counters: { updated: await numbers.updateNumbersVariables(deps, request.accountId, addressBookId, phones, variables) } }
      },
    )

    app.delete(
      '/sms/numbers',
      { schema: { tags, summary: 'Delete numbers from a mailing list', body: S.DeleteNumbersBody, response: responses(S.DeletedNumbersResult, 404, 422) } },
      async (request) => ({ result: true, counters: { deleted: await numbers.deleteNumbers(deps, request.accountId, request.body.addressBookId, request.body.phones) } }),
    )

    app.post(
      '/addressbooks/:id/phones/variable',
      { schema: { tags, summary: 'Set variables of one number of a mailing list', params: IdParams, body: S.NumberVariablesBody, response: responses(ResultTrue, 404, 422) } },
      async (request) => {
        await numbers.updateNumberVariables(deps, request.accountId, request.params.id, request.body.phone, request.body.variables)
        return { result: true }
      },
    )

    app.get(
      '/sms/numbers/info/:addressBookId/:phoneNumber',
      { schema: { tags, summary: 'One number of a mailing list', params: S.NumberInfoParams, response: responses(S.NumberInfo, 404, 422) } },
      async (request) => {
        const info = await numbers.getNumberInfo(deps, request.accountId, request.params.addressBookId, request.params.phoneNumber)
        return { result: true, data: { status: info.status, variables: info.variables, added: toWireDate(info.createdAt) } }
      },
    )
  }
}
