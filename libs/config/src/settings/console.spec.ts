import { loadSections } from '../section';
import { consoleSettings } from './console';

describe('console settings', () => {
  it('defaults: served by the API at /console/, framed by nobody, links of 10 minutes, sessions of an hour', () => {
    expect(loadSections([consoleSettings], {}).console).toEqual({
      url: 'http://localhost:8080/console/',
      frameAncestors: [],
      portalLinkTtlMs: 600_000,
      portalSessionTtlMs: 3_600_000,
    });
  });

  it('ends the console address with a slash, so that relative paths stay inside it', () => {
    expect(
      loadSections([consoleSettings], { CONSOLE_URL: 'https://hooks.example.com/console' }).console
        .url,
    ).toBe('https://hooks.example.com/console/');
  });

  it("takes origins and 'self' as frame ancestors, and refuses a wildcard, a path or a scheme-less host", () => {
    expect(
      loadSections([consoleSettings], {
        CONSOLE_FRAME_ANCESTORS: "https://app.example.com, 'self', http://localhost:3000",
      }).console.frameAncestors,
    ).toEqual(['https://app.example.com', "'self'", 'http://localhost:3000']);
    for (const bad of ['*', 'https://app.example.com/embed', 'app.example.com']) {
      expect(() => loadSections([consoleSettings], { CONSOLE_FRAME_ANCESTORS: bad })).toThrow(
        /CONSOLE_FRAME_ANCESTORS/,
      );
    }
  });
});
