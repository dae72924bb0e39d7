import { loadSections } from '../section';
import { webhookAddresses, webhookBatches } from './webhooks';

describe('webhook settings', () => {
  it('reads the cap of one recover call and refuses one below 1', () => {
    expect(
      loadSections([webhookBatches], { WEBHOOK_RECOVER_REDRIVE_LIMIT: '500' }).webhooks,
    ).toMatchObject({ recoverRedriveLimit: 500 });
    expect(() => loadSections([webhookBatches], { WEBHOOK_RECOVER_REDRIVE_LIMIT: '0' })).toThrow(
      /WEBHOOK_RECOVER_REDRIVE_LIMIT/,
    );
  });

  it('reads the cap of one replay call and refuses one below 1', () => {
    expect(loadSections([webhookBatches], { WEBHOOK_REPLAY_LIMIT: '250' }).webhooks).toMatchObject({
      replayLimit: 250,
    });
    expect(() => loadSections([webhookBatches], { WEBHOOK_REPLAY_LIMIT: '0' })).toThrow(
      /WEBHOOK_REPLAY_LIMIT/,
    );
  });

  it('reads private ranges endpoints may use, and refuses what is not a CIDR range', () => {
    expect(
      loadSections([webhookAddresses], { WEBHOOK_ALLOWED_PRIVATE_CIDRS: '127.0.0.0/8, ::1/128' })
        .webhooks.allowedPrivateCidrs,
    ).toEqual(['127.0.0.0/8', '::1/128']);
    expect(() =>
      loadSections([webhookAddresses], { WEBHOOK_ALLOWED_PRIVATE_CIDRS: '10.0.0.0/8,banana' }),
    ).toThrow(/"banana" is not a CIDR/);
  });
});
