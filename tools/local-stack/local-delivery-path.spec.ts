import { withLoopback } from './local-delivery-path';

describe('the loopback ranges of the local stack', () => {
  it.each([
    [undefined, '127.0.0.0/8,::1/128'],
    ['', '127.0.0.0/8,::1/128'],
    ['10.0.0.0/8', '10.0.0.0/8,127.0.0.0/8,::1/128'],
    [' 10.0.0.0/8 , ::1/128', '10.0.0.0/8,::1/128,127.0.0.0/8'],
    ['127.0.0.0/8,::1/128', '127.0.0.0/8,::1/128'],
  ])('adds loopback to %p once: %p', (given, expected) => {
    expect(withLoopback(given)).toBe(expected);
  });
});
