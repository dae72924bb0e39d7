import { PageHeading } from '../components/feedback';

/** A user whose grant lacks webhooks:manage: the API would refuse every page, so say why. */
export function NoAccessPage() {
  return (
    <>
      <PageHeading>No access to webhooks</PageHeading>
      <p>
        Your account may not manage webhooks (the scope <code>webhooks:manage</code>), so the
        console has nothing to show. Ask an administrator of your tenant to grant it, then sign in
        again.
      </p>
    </>
  );
}
