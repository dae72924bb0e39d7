import { BannerDetails, renderBanner } from './banner';

const details: BannerDetails = {
  host: '0.0.0.0',
  ports: { api: 8080, auth: 8081, delivery: 8082 },
  managementPorts: { api: 9080, auth: 9081 },
  databaseUrl: 'postgres://postgres:secret@127.0.0.1:5433/svc',
  natsUrl: 'nats://127.0.0.1:4222',
  console: { url: 'http://localhost:8080/console/', built: true },
};

describe('the banner of npm start', () => {
  it("shows the console's address and how to get a user who can sign in to it", () => {
    const banner = renderBanner(details);
    expect(banner).toContain('  Console    http://localhost:8080/console/   (sign in as a user');
    expect(banner).toContain(
      'users create --email you@example.com --tenant ten_... --scopes webhooks:manage',
    );
    expect(banner).not.toContain('secret');
  });

  it('says when the console is not built yet', () => {
    expect(renderBanner({ ...details, console: { ...details.console, built: false } })).toContain(
      'http://localhost:8080/console/   (not built yet: npm run build, then reload)',
    );
  });
});
