import { expect } from 'chai';
import { isOpenNow, type Availability } from '../src/index.js';

const weekdays = (opens: string, closes: string) => [1, 2, 3, 4, 5].map((weekday) => ({ weekday, opens, closes }));
const at = (iso: string) => new Date(iso);

describe('isOpenNow', () => {
  it('is always open without business hours', () => {
    expect(isOpenNow({ timeZone: 'Europe/Lisbon', businessHours: [] }, at('2026-11-22T03:00:00Z'))).to.deep.equal({
      open: true,
      nextOpening: null,
    });
    expect(isOpenNow(undefined, at('2026-11-22T03:00:00Z')).open).to.equal(true);
  });

  it('reads the hours in the integration time zone, not the browser one', () => {
    const newYork: Availability = { timeZone: 'America/New_York', businessHours: weekdays('09:00', '17:00') };
    // Monday 13:00 UTC is 08:00 in New York (EST, UTC-5): closed, opening at 14:00 UTC.
    expect(isOpenNow(newYork, at('2026-11-23T13:00:00Z'))).to.deep.equal({
      open: false,
      nextOpening: at('2026-11-23T14:00:00Z'),
    });
    expect(isOpenNow(newYork, at('2026-11-23T14:00:00Z')).open).to.equal(true);
    expect(isOpenNow(newYork, at('2026-11-23T21:59:00Z')).open).to.equal(true);
    expect(isOpenNow(newYork, at('2026-11-23T22:00:00Z')).open).to.equal(false);
  });

  it('uses the local weekday when the zone is already on the next day', () => {
    // Sunday 20:00 UTC is Monday 05:00 in Tokyo: closed until Monday 09:00 JST (00:00 UTC).
    const tokyo: Availability = { timeZone: 'Asia/Tokyo', businessHours: weekdays('09:00', '17:00') };
    expect(isOpenNow(tokyo, at('2026-11-22T20:00:00Z'))).to.deep.equal({
      open: false,
      nextOpening: at('2026-11-23T00:00:00Z'),
    });
  });

  it('stays open across midnight with intervals ending at 24:00 and starting at 00:00', () => {
    const late: Availability = {
      timeZone: 'UTC',
      businessHours: [
        { weekday: 5, opens: '22:00', closes: '24:00' },
        { weekday: 6, opens: '00:00', closes: '02:00' },
      ],
    };
    expect(isOpenNow(late, at('2026-11-27T23:59:00Z')).open).to.equal(true);
    expect(isOpenNow(late, at('2026-11-28T00:00:00Z')).open).to.equal(true);
    expect(isOpenNow(late, at('2026-11-28T02:00:00Z'))).to.deep.equal({
      open: false,
      nextOpening: at('2026-12-04T22:00:00Z'),
    });
  });

  it('finds the next opening in the next week, and none when every interval is empty', () => {
    const mondays: Availability = { timeZone: 'UTC', businessHours: [{ weekday: 1, opens: '10:00', closes: '11:00' }] };
    expect(isOpenNow(mondays, at('2026-11-23T11:30:00Z')).nextOpening).to.deep.equal(at('2026-11-30T10:00:00Z'));
    const never: Availability = { timeZone: 'UTC', businessHours: [{ weekday: 1, opens: '10:00', closes: '10:00' }] };
    expect(isOpenNow(never, at('2026-11-23T10:00:00Z'))).to.deep.equal({ open: false, nextOpening: null });
  });

  it('gives the next opening in the offset it will have after a daylight-saving change', () => {
    // Berlin moves from CET (+1) to CEST (+2) in the night of 29 March 2026; Sunday 09:00 CEST is 07:00 UTC.
    const berlin: Availability = {
      timeZone: 'Europe/Berlin',
      businessHours: [{ weekday: 7, opens: '09:00', closes: '12:00' }],
    };
    expect(isOpenNow(berlin, at('2026-03-28T20:00:00Z')).nextOpening).to.deep.equal(at('2026-03-29T07:00:00Z'));
  });

  it('counts an unknown time zone as UTC', () => {
    const broken: Availability = { timeZone: 'Mars/Olympus', businessHours: weekdays('09:00', '17:00') };
    expect(isOpenNow(broken, at('2026-11-23T09:00:00Z')).open).to.equal(true);
    expect(isOpenNow(broken, at('2026-11-23T08:59:00Z')).open).to.equal(false);
  });
});
