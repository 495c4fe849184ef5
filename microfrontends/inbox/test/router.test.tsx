/** @jest-environment jsdom */
import { act, render, screen } from '@testing-library/react';
import { matchTicketsRoute, usePathname, useTicketId } from '../src/lib/router';
import { navigateTo } from '../src/conversation/navigation';

describe('inbox routes without a router library', () => {
  test('matchTicketsRoute: /tickets and /tickets/:ticketId only, case-insensitive, decoded', () => {
    expect(matchTicketsRoute('/tickets')).toEqual({});
    expect(matchTicketsRoute('/tickets/')).toEqual({});
    expect(matchTicketsRoute('/Tickets')).toEqual({});
    expect(matchTicketsRoute('/tickets/7d1f0c2e-1b2a-4c3d-9e8f-000000000001')).toEqual({ ticketId: '7d1f0c2e-1b2a-4c3d-9e8f-000000000001' });
    expect(matchTicketsRoute('/tickets/a%20b')).toEqual({ ticketId: 'a b' });
    expect(matchTicketsRoute('/tickets/%E0%A4%A')).toEqual({ ticketId: '%E0%A4%A' });
    expect(matchTicketsRoute('/tickets/a/b')).toBeNull();
    expect(matchTicketsRoute('/ticketsx')).toBeNull();
    expect(matchTicketsRoute('/contacts')).toBeNull();
    expect(matchTicketsRoute('/')).toBeNull();
  });

  test('the hooks follow the URL on navigation and on back (popstate)', async () => {
    window.history.replaceState(null, '', '/tickets');
    function Probe() {
      return (
        <output data-testid="probe">
          {usePathname()}|{useTicketId() ?? '-'}
        </output>
      );
    }
    render(<Probe />);
    expect(screen.getByTestId('probe').textContent).toBe('/tickets|-');
    act(() => navigateTo('/tickets/u-1'));
    expect(screen.getByTestId('probe').textContent).toBe('/tickets/u-1|u-1');
    expect(window.location.pathname).toBe('/tickets/u-1');
    await act(async () => {
      window.history.back();
      await new Promise((r) => window.addEventListener('popstate', r, { once: true }));
    });
    expect(screen.getByTestId('probe').textContent).toBe('/tickets|-');
    act(() => navigateTo('/contacts'));
    expect(screen.getByTestId('probe').textContent).toBe('/contacts|-');
  });
});
