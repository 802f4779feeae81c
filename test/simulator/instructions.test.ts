import {
  addEncoderSizePrefix,
  getAddressEncoder,
  getArrayEncoder,
  getBooleanEncoder,
  getStructEncoder,
  getU32Encoder,
  getU64Encoder,
  getU8Encoder,
  getUtf8Encoder,
  type Address,
  type Encoder,
} from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { INSTRUCTION_DISCRIMINATORS } from '../../src/protocol/index.js';
import { computeBudgetIx, gambaIx, MORE_IX_DISCRIMINATORS, systemIx, tokenIx } from '../../src/simulator/transactions/index.js';

// The layouts composed field by field from @solana/kit's encoders (Borsh from the gamba-labs IDL;
// SPL Token, System and ComputeBudget instruction.rs), independently of the prefixed struct
// encoders src/simulator/transactions/instructions.ts builds.
const u8 = getU8Encoder();
const u32 = getU32Encoder();
const u64 = getU64Encoder();
const str = addEncoderSizePrefix(getUtf8Encoder(), u32);
const pubkey = getAddressEncoder();
const cat = (...parts: ArrayLike<number>[]) => Uint8Array.from(parts.flatMap((p) => Array.from(p)));
const withDisc = <T>(disc: Uint8Array, enc: Encoder<T>, args: T) => cat(disc, enc.encode(args));

const SOME_KEY = 'Gamba2hK6KV3quKq854B3sQG1WMdq3zgQLPKqyK4qS18';
const OTHER_KEY = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';

describe('instruction data', () => {
  it('Gamba instructions match kit-encoded Borsh', () => {
    const play = { wager: 123_456_789_012n, bet: [20000, 0, 15000], clientSeed: 'a1b2c3d4', creatorFeeBps: 100, jackpotFeeBps: 10, metadata: '0:flip:heads é' };
    const playArgs = getStructEncoder([
      ['wager', u64],
      ['bet', getArrayEncoder(u32, { size: u32 })],
      ['clientSeed', str],
      ['creatorFeeBps', u32],
      ['jackpotFeeBps', u32],
      ['metadata', str],
    ]);
    expect(gambaIx.playGame(play)).toEqual(withDisc(INSTRUCTION_DISCRIMINATORS.playGame, playArgs, play));
    const settle = { rngSeed: 'f9820b534c374054f0c2f9a02e0ae7e4', nextRngSeedHashed: '7b07a37467ec77789881792759a4c5b7071c18fc1bea4e8afafddf6e263fd2c3' };
    expect(gambaIx.rngSettle(settle)).toEqual(withDisc(INSTRUCTION_DISCRIMINATORS.rngSettle, getStructEncoder([['rngSeed', str], ['nextRngSeedHashed', str]]), settle));
    const amount = getStructEncoder([['amount', u64]]);
    expect(gambaIx.poolDeposit(18_446_744_073_709_551_615n)).toEqual(withDisc(INSTRUCTION_DISCRIMINATORS.poolDeposit, amount, { amount: 18_446_744_073_709_551_615n }));
    expect(gambaIx.poolWithdraw(5n)).toEqual(withDisc(INSTRUCTION_DISCRIMINATORS.poolWithdraw, amount, { amount: 5n }));
    const init = getStructEncoder([['poolAuthority', pubkey], ['lookupAddress', pubkey]]);
    expect(gambaIx.poolInitialize(SOME_KEY, OTHER_KEY)).toEqual(withDisc(INSTRUCTION_DISCRIMINATORS.poolInitialize, init, { poolAuthority: SOME_KEY as Address, lookupAddress: OTHER_KEY as Address }));
    expect(gambaIx.distributeFees(true)).toEqual(withDisc(MORE_IX_DISCRIMINATORS.distributeFees, getStructEncoder([['nativeSol', getBooleanEncoder()]]), { nativeSol: true }));
    expect(gambaIx.playerInitialize()).toEqual(MORE_IX_DISCRIMINATORS.playerInitialize);
  });

  it('ComputeBudget, SPL Token and System instructions match kit-encoded layouts', () => {
    expect(computeBudgetIx.setLimit(1_400_000)).toEqual(cat(u8.encode(2), u32.encode(1_400_000)));
    expect(computeBudgetIx.setPrice(50_000)).toEqual(cat(u8.encode(3), u64.encode(50_000n)));
    expect(tokenIx.transfer(42n)).toEqual(cat(u8.encode(3), u64.encode(42n)));
    expect(tokenIx.mintTo(7n)).toEqual(cat(u8.encode(7), u64.encode(7n)));
    expect(tokenIx.burn(8n)).toEqual(cat(u8.encode(8), u64.encode(8n)));
    expect(tokenIx.initializeMint2(9, SOME_KEY)).toEqual(cat(u8.encode(20), u8.encode(9), pubkey.encode(SOME_KEY as Address), u8.encode(0)));
    expect(systemIx.createAccount(1_461_600n, 82n, OTHER_KEY)).toEqual(cat(u32.encode(0), u64.encode(1_461_600n), u64.encode(82n), pubkey.encode(OTHER_KEY as Address)));
  });

  it('refuses out-of-range integers and bad addresses', () => {
    expect(() => tokenIx.transfer(1n << 64n)).toThrow();
    expect(() => computeBudgetIx.setLimit(-1)).toThrow();
    expect(() => tokenIx.initializeMint2(256, SOME_KEY)).toThrow();
    expect(() => systemIx.createAccount(1n, 1n, 'not-an-address')).toThrow(RangeError);
  });

  it('each call returns its own bytes', () => {
    const a = tokenIx.transfer(1n);
    const b = tokenIx.transfer(2n);
    expect(a).not.toBe(b);
    expect(a[1]).toBe(1);
    expect(b[1]).toBe(2);
  });
});
