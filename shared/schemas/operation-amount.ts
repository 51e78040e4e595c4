// The amount fields of a staged operation's view and of its staging answer
// (docs/reference/http-api.md "Amount of each kind").

export const operationAmountSchema = {
  type: 'integer',
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  description:
    'What the kind defines as the money the operation moves, in integer minor units (docs/reference/http-api.md "Amount of each kind"); 2^53 − 1 at most.',
} as const;

export const operationCurrencySchema = {
  type: 'string',
  description: "The amount's currency: the plan's, or the organisation's base currency where the kind has none.",
} as const;
