import { loadSections } from '../section';
import { apiPorts, authPorts, deliveryPort, httpLimits } from './http';

describe('HTTP settings (ADR 0019)', () => {
  it('refuses a headers timeout longer than the request timeout', () => {
    expect(() =>
      loadSections([httpLimits], { HTTP_REQUEST_TIMEOUT: '5s', HTTP_HEADERS_TIMEOUT: '10s' }),
    ).toThrow(/HTTP_HEADERS_TIMEOUT: must not be longer than HTTP_REQUEST_TIMEOUT/);
  });

  it("merges each app's ports into one object when an app's sections are joined", () => {
    expect(
      loadSections([apiPorts, authPorts, deliveryPort], { AUTH_PORT: '7081', DELIVERY_PORT: '0' }),
    ).toEqual({
      ports: { api: 8080, auth: 7081, delivery: 0 },
      managementPorts: { api: 9080, auth: 9081 },
    });
  });

  it('refuses a port outside 0 to 65535', () => {
    expect(() => loadSections([apiPorts], { API_MANAGEMENT_PORT: '65536' })).toThrow(
      /API_MANAGEMENT_PORT/,
    );
  });
});
