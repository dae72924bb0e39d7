import { DeliveryConclusion } from '@svc/deliveries';
import { StatementParameters } from '@svc/event-store';
import { decisiveConclusions, endpointStatusesKeptSql } from './endpoint-status-recorder';

const concluded = (endpointId: string, conclusion: DeliveryConclusion, deliveryId = 'del_1') => ({
  endpointId,
  deliveryId,
  conclusion,
});

describe('decisiveConclusions', () => {
  it('lets the last conclusion of a batch decide, and a retry decide nothing', () => {
    const decisive = decisiveConclusions([
      concluded('wh_a', 'abandoned', 'del_1'),
      concluded('wh_a', 'succeeded', 'del_2'),
      concluded('wh_a', 'retrying', 'del_3'),
      concluded('wh_b', 'retrying'),
    ]);
    expect([...decisive.values()]).toEqual([concluded('wh_a', 'succeeded', 'del_2')]);
  });

  it('keeps a 410 Gone whatever comes after it in the batch', () => {
    const decisive = decisiveConclusions([
      concluded('wh_a', 'gone', 'del_1'),
      concluded('wh_a', 'succeeded', 'del_2'),
    ]);
    expect(decisive.get('wh_a')).toEqual(concluded('wh_a', 'gone', 'del_1'));
  });
});

describe('endpointStatusesKeptSql', () => {
  it('needs no look at the endpoints when nothing concludes', () => {
    const parameters = new StatementParameters();
    expect(endpointStatusesKeptSql([concluded('wh_a', 'retrying')], parameters)).toBe(
      'SELECT true AS proceed',
    );
    expect(parameters.values).toEqual([]);
  });

  it('asks for each concluded endpoint to be in a status its conclusion keeps', () => {
    const parameters = new StatementParameters();
    endpointStatusesKeptSql(
      [concluded('wh_a', 'succeeded'), concluded('wh_b', 'gone')],
      parameters,
    );
    expect(parameters.values).toEqual([
      ['wh_a', 'wh_b'],
      ['wh_a', 'wh_a', 'wh_b'],
      ['active', 'disabled', 'disabled'],
    ]);
  });
});
