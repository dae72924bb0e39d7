import type { GrantRevocationReason } from '@svc/oauth';
import { Counter, Registry } from 'prom-client';

export type SignInOutcome = 'succeeded' | 'failed' | 'throttled';
export type ConsentDecision = 'allowed' | 'denied';
export type TokenGrantType = 'authorization_code' | 'refresh_token' | 'other';
/** `issued`, or the RFC 6749 5.2 error code answered. */
export type TokenOutcome =
  | 'issued'
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'invalid_scope'
  | 'unsupported_grant_type';

const SIGN_IN_OUTCOMES: SignInOutcome[] = ['succeeded', 'failed', 'throttled'];
const CONSENT_DECISIONS: ConsentDecision[] = ['allowed', 'denied'];
const GRANT_TYPES: TokenGrantType[] = ['authorization_code', 'refresh_token', 'other'];
const TOKEN_OUTCOMES: TokenOutcome[] = [
  'issued',
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'invalid_scope',
  'unsupported_grant_type',
];
const REVOCATION_REASONS: GrantRevocationReason[] = [
  'authorization_code_reused',
  'refresh_token_reused',
  'revoked_by_client',
];

/** The authorization server's metrics (docs/operations.md, "Metrics"); every series starts at zero. */
export class AuthMetrics {
  readonly signIns: Counter<'outcome'>;
  readonly consents: Counter<'decision'>;
  readonly tokenRequests: Counter<'grant_type' | 'outcome'>;
  readonly grantsRevoked: Counter<'reason'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.signIns = new Counter({
      name: 'svc_auth_sign_ins_total',
      help: 'Sign-in form submissions, by outcome',
      labelNames: ['outcome'],
      registers,
    });
    this.consents = new Counter({
      name: 'svc_auth_consent_decisions_total',
      help: 'Answers on the consent page',
      labelNames: ['decision'],
      registers,
    });
    this.tokenRequests = new Counter({
      name: 'svc_auth_token_requests_total',
      help: 'Token endpoint requests, by grant type and outcome (issued or the error code)',
      labelNames: ['grant_type', 'outcome'],
      registers,
    });
    this.grantsRevoked = new Counter({
      name: 'svc_auth_grants_revoked_total',
      help: 'Grants revoked, by reason (code or refresh-token reuse, or the client)',
      labelNames: ['reason'],
      registers,
    });
    for (const outcome of SIGN_IN_OUTCOMES) this.signIns.inc({ outcome }, 0);
    for (const decision of CONSENT_DECISIONS) this.consents.inc({ decision }, 0);
    for (const grant_type of GRANT_TYPES) {
      for (const outcome of TOKEN_OUTCOMES) this.tokenRequests.inc({ grant_type, outcome }, 0);
    }
    for (const reason of REVOCATION_REASONS) this.grantsRevoked.inc({ reason }, 0);
  }
}
