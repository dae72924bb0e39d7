import type { ReceiverAuthView } from '../../api/api-types';
import { DateTime } from '../../components/date-time';
import {
  certificateExpiry,
  formatDateTime,
  formatReceiverAuthType,
} from '../../format/display-format';

/** A client certificate's end, said in words when it has come or is within 30 days (ADR 0048). */
function CertificateEnd({ notAfter }: { notAfter: string }) {
  const expiry = certificateExpiry(notAfter, new Date());
  if (expiry === 'expired') {
    return (
      <p class="field-error">
        The certificate expired on {formatDateTime(notAfter)}: the receiver will refuse deliveries
        until a new one is set.
      </p>
    );
  }
  return (
    <p class={expiry === 'soon' ? 'field-error' : undefined}>
      {expiry === 'soon' ? 'Expires within 30 days, on ' : 'Expires '}
      <DateTime iso={notAfter} />
      {expiry === 'soon' ? '. Set a new certificate before then.' : null}
    </p>
  );
}

/** What the endpoint page shows of the receiver authentication: its type and what is not secret. */
export function ReceiverAuthSummary({ auth }: { auth: ReceiverAuthView | null }) {
  if (!auth) {
    return <>None: the signature only</>;
  }
  const type = formatReceiverAuthType(auth.type);
  switch (auth.type) {
    case 'headers':
      return (
        <>
          {type}:{' '}
          <ul class="inline-list">
            {auth.header_names.map((name) => (
              <li key={name}>
                <code>{name}</code>
              </li>
            ))}
          </ul>
        </>
      );
    case 'basic':
      return (
        <>
          {type}, user name <code>{auth.username}</code>
        </>
      );
    case 'oauth2_client_credentials':
      return (
        <>
          {type}: client <code>{auth.client_id}</code> at <code class="url">{auth.token_url}</code>
          {auth.scope ? (
            <>
              , scope <code>{auth.scope}</code>
            </>
          ) : null}
          {auth.audience ? (
            <>
              , audience <code>{auth.audience}</code>
            </>
          ) : null}
        </>
      );
    case 'mtls':
      return (
        <>
          {type}: subject <code>{auth.subject}</code>, issued by <code>{auth.issuer}</code>
          <CertificateEnd notAfter={auth.not_after} />
          <p class="hint">
            SHA-256 fingerprint <code class="excerpt">{auth.fingerprint_sha256}</code>
          </p>
        </>
      );
    default:
      return <>{formatReceiverAuthType((auth as { type: ReceiverAuthView['type'] }).type)}</>;
  }
}
