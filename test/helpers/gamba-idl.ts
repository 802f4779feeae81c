/**
 * The Gamba v2 events as an Anchor 0.30+ IDL (field order and types from gamba-labs/gamba
 * packages/core/src/idl.ts, docs/protocol.md §4), so tests can decode with @coral-xyz/anchor's
 * BorshCoder / EventParser — an implementation independent of ours.
 */
export const GAMBA_EVENTS_IDL = {
  address: 'Gamba2hK6KV3quKq854B3sQG1WMdq3zgQLPKqyK4qS18',
  metadata: { name: 'gamba', version: '0.1.0', spec: '0.1.0' },
  instructions: [],
  events: [
    { name: 'GameSettled', discriminator: [63, 109, 128, 85, 229, 63, 167, 176] },
    { name: 'PoolChange', discriminator: [241, 7, 155, 154, 56, 57, 0, 101] },
    { name: 'PoolCreated', discriminator: [202, 44, 41, 88, 104, 220, 157, 82] },
  ],
  types: [
    {
      name: 'GameSettled',
      type: {
        kind: 'struct',
        fields: [
          { name: 'user', type: 'pubkey' },
          { name: 'pool', type: 'pubkey' },
          { name: 'tokenMint', type: 'pubkey' },
          { name: 'creator', type: 'pubkey' },
          { name: 'creatorFee', type: 'u64' },
          { name: 'gambaFee', type: 'u64' },
          { name: 'poolFee', type: 'u64' },
          { name: 'jackpotFee', type: 'u64' },
          { name: 'underlyingUsed', type: 'u64' },
          { name: 'bonusUsed', type: 'u64' },
          { name: 'wager', type: 'u64' },
          { name: 'payout', type: 'u64' },
          { name: 'multiplierBps', type: 'u32' },
          { name: 'payoutFromBonusPool', type: 'u64' },
          { name: 'payoutFromNormalPool', type: 'u64' },
          { name: 'jackpotProbabilityUbps', type: 'u64' },
          { name: 'jackpotResult', type: 'u64' },
          { name: 'nonce', type: 'u64' },
          { name: 'clientSeed', type: 'string' },
          { name: 'resultIndex', type: 'u64' },
          { name: 'bet', type: { vec: 'u32' } },
          { name: 'jackpotPayoutToUser', type: 'u64' },
          { name: 'poolLiquidity', type: 'u64' },
          { name: 'rngSeed', type: 'string' },
          { name: 'nextRngSeedHashed', type: 'string' },
          { name: 'metadata', type: 'string' },
        ],
      },
    },
    { name: 'PoolAction', type: { kind: 'enum', variants: [{ name: 'Deposit' }, { name: 'Withdraw' }] } },
    {
      name: 'PoolChange',
      type: {
        kind: 'struct',
        fields: [
          { name: 'user', type: 'pubkey' },
          { name: 'pool', type: 'pubkey' },
          { name: 'tokenMint', type: 'pubkey' },
          { name: 'action', type: { defined: { name: 'PoolAction' } } },
          { name: 'amount', type: 'u64' },
          { name: 'postLiquidity', type: 'u64' },
          { name: 'lpSupply', type: 'u64' },
        ],
      },
    },
    {
      name: 'PoolCreated',
      type: {
        kind: 'struct',
        fields: [
          { name: 'user', type: 'pubkey' },
          { name: 'authority', type: 'pubkey' },
          { name: 'pool', type: 'pubkey' },
          { name: 'tokenMint', type: 'pubkey' },
        ],
      },
    },
  ],
} as const;
