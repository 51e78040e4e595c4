// storeRefusal (shared/storage/store-refusal.ts): which store errors refuse the
// written document itself, so an apply ends instead of retrying for ever.
import { expect } from 'chai';
import { storeRefusal } from '../../shared/storage/store-refusal.js';

const error = (message: string, fields: Record<string, unknown> = {}): Error =>
  Object.assign(new Error(message), fields);

describe('storeRefusal', () => {
  it("names PostgreSQL's data exception as FerretDB passes it on, at the top or in the first write error", () => {
    const ferret =
      '[msg_insert.go:168 handler.(*Handler).MsgInsert] ERROR: unsupported Unicode escape sequence (SQLSTATE 22P05)';
    expect(storeRefusal(error(ferret, { code: 1, errmsg: ferret, writeErrors: [] }))).to.equal('SQLSTATE 22P05');
    expect(storeRefusal(error('bulk', { writeErrors: [{ code: 1, errmsg: 'x (SQLSTATE 22021)' }] }))).to.equal(
      'SQLSTATE 22021',
    );
  });

  it("names MongoDB's refusals of a document by code", () => {
    expect(storeRefusal(error('Document failed validation', { code: 121 }))).to.equal('code 121');
    expect(storeRefusal(error('too large', { code: 10334 }))).to.equal('code 10334');
  });

  it('leaves everything else to the retries: a duplicate key, a lost connection, another SQLSTATE, a non-error', () => {
    expect(storeRefusal(error('E11000 duplicate key', { code: 11000, writeErrors: [{ code: 11000 }] }))).to.equal(null);
    expect(storeRefusal(error('connection refused', { code: 'ECONNREFUSED' }))).to.equal(null);
    expect(storeRefusal(error('ERROR: connection lost (SQLSTATE 08006)', { code: 1 }))).to.equal(null);
    expect(storeRefusal('SQLSTATE 22P05')).to.equal(null);
  });
});
