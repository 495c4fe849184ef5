/** @jest-environment jsdom */
import { act, render, screen } from '@testing-library/react';
import { useTheme } from 'styled-components';
import { AtendoThemeProvider, setThemeMode, toggleThemeMode } from '../src';

function mockSystemDark(dark: boolean) {
  window.matchMedia = ((query: string) => ({ matches: dark && query === '(prefers-color-scheme: dark)', media: query })) as unknown as typeof window.matchMedia;
}

/** A fresh copy of the module (its stores are module state). */
function load() {
  let mod!: typeof import('../src');
  jest.isolateModules(() => {
    mod = jest.requireActual('../src');
  });
  return mod;
}

beforeEach(() => window.localStorage.clear());

describe('theme store', () => {
  test('defaults to the system preference, then to the remembered preferredTheme', () => {
    mockSystemDark(true);
    expect(load().getThemeMode()).toBe('dark');
    mockSystemDark(false);
    expect(load().getThemeMode()).toBe('light');
    window.localStorage.setItem('preferredTheme', 'dark');
    expect(load().getThemeMode()).toBe('dark');
  });

  test('toggling stores preferredTheme and re-renders providers with the other palette', () => {
    setThemeMode('light');
    function Probe() {
      const theme = useTheme();
      return <span data-testid="probe">{`${theme.mode} ${theme.colors.primary}`}</span>;
    }
    render(
      <AtendoThemeProvider>
        <Probe />
      </AtendoThemeProvider>,
    );
    expect(screen.getByTestId('probe').textContent).toBe('light #F57C00');
    act(() => toggleThemeMode());
    expect(screen.getByTestId('probe').textContent).toBe('dark #FF9800');
    expect(window.localStorage.getItem('preferredTheme')).toBe('dark');
    expect(document.documentElement.dataset.theme).toBe('dark');
  });
});

describe('volume store', () => {
  test('0..1 in steps of 0.1, remembered in localStorage volume (default 1)', () => {
    const ui = load();
    expect(ui.getVolume()).toBe(1);
    ui.setVolume(0.34);
    expect(ui.getVolume()).toBe(0.3);
    expect(window.localStorage.getItem('volume')).toBe('0.3');
    ui.setVolume(7);
    expect(ui.getVolume()).toBe(1);
    ui.setVolume(-2);
    expect(ui.getVolume()).toBe(0);
    window.localStorage.setItem('volume', '0.7');
    expect(load().getVolume()).toBe(0.7);
    window.localStorage.setItem('volume', 'loud');
    expect(load().getVolume()).toBe(1);
  });
});
