import { grantScopes } from './scope-grant';

describe('grantScopes', () => {
  it('grants the intersection of requested and allowed, in the order requested', () => {
    expect(
      grantScopes('webhooks:manage tenants:read alerts:read', ['tenants:read', 'webhooks:manage']),
    ).toEqual({
      granted: ['webhooks:manage', 'tenants:read'],
      unknown: [],
    });
  });

  it('reports names that are not scopes and ignores repeats and extra spaces', () => {
    expect(grantScopes('  tenants:read  tenants:read admin ', ['tenants:read'])).toEqual({
      granted: ['tenants:read'],
      unknown: ['admin'],
    });
  });

  it('grants nothing when nothing requested is allowed', () => {
    expect(grantScopes('alerts:write', ['tenants:read']).granted).toEqual([]);
  });
});
