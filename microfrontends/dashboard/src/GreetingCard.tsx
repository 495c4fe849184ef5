import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { daysUntil, formatBRL, formatDate, PLAN_FEATURES, useCompanyPlan, useSessionUser } from '@atendo/web-api';
import { Button, Card, Icon, Loading, Muted } from '@atendo/web-ui';

const Grid = styled.div`
  display: grid;
  gap: ${(p) => p.theme.space(3)};
  grid-template-columns: repeat(auto-fit, minmax(260px, 1fr));
  margin-top: ${(p) => p.theme.space(3)};
`;

const Hello = styled.h1`
  margin: 0 0 4px;
  font-size: ${(p) => p.theme.font.size.xxl};
  color: ${(p) => p.theme.colors.text};
`;

const Section = styled.div`
  h2 {
    margin: 0 0 ${(p) => p.theme.space(1)};
    font-size: ${(p) => p.theme.font.size.sm};
    font-weight: ${(p) => p.theme.font.weight.medium};
    text-transform: uppercase;
    letter-spacing: 0.06em;
    color: ${(p) => p.theme.colors.textMuted};
  }
`;

const Big = styled.div`
  font-size: ${(p) => p.theme.font.size.xl};
  font-weight: ${(p) => p.theme.font.weight.bold};
  color: ${(p) => p.theme.colors.primary};
`;

const List = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
  display: grid;
  gap: 6px;
  li { display: flex; align-items: center; gap: 8px; }
`;

const Mark = styled.span<{ $on: boolean }>`
  display: inline-flex;
  color: ${(p) => (p.$on ? p.theme.colors.success : p.theme.colors.textMuted)};
  opacity: ${(p) => (p.$on ? 1 : 0.7)};
`;

const Limits = styled.dl`
  display: grid;
  grid-template-columns: 1fr auto;
  gap: 6px 16px;
  margin: 0;
  dt { color: ${(p) => p.theme.colors.textMuted}; }
  dd { margin: 0; font-weight: ${(p) => p.theme.font.weight.medium}; text-align: right; }
`;

/**
 * The company greeting card of the dashboard (route /): the user's name, the company name, the
 * subscription due date and the plan (amount, limits and feature list) from
 * `GET /companies/listPlan/{companyId}`.
 */
export function GreetingCard() {
  const { t } = useTranslation('dashboard');
  const user = useSessionUser();
  const plan = useCompanyPlan();
  if (!user) return null;
  if (plan.isPending) return <Loading label={t('loading')} />;
  if (plan.isError || !plan.data) {
    return (
      <Card role="alert">
        <Muted>{t('loadError')}</Muted>
        <Button variant="secondary" onClick={() => void plan.refetch()} style={{ marginTop: 16 }}>
          {t('retry')}
        </Button>
      </Card>
    );
  }
  const company = plan.data;
  const companyPlan = company.plan;
  const due = company.id === 1 ? undefined : company.dueDate ?? user.company?.dueDate ?? undefined;
  const left = daysUntil(due);
  const dueNote = due === undefined ? t('never') : left === undefined ? '' : left < 0 ? t('expired') : left === 0 ? t('dueToday') : t('daysLeft', { count: left });
  return (
    <section aria-labelledby="dashboard-greeting" data-testid="dashboard-greeting">
      <Card>
        <Hello id="dashboard-greeting">{t('greeting', { name: user.name })}</Hello>
        <Muted>{t('welcome', { company: company.name })}</Muted>
      </Card>
      <Grid>
        <Card>
          <Section>
            <h2>{t('dueDate')}</h2>
            <Big>{due ? formatDate(due) : '—'}</Big>
            <Muted>{dueNote}</Muted>
          </Section>
        </Card>
        <Card>
          <Section>
            <h2>{t('plan')}</h2>
            <Big>{companyPlan?.name ?? '—'}</Big>
            <Muted>
              {t('amount')}: {formatBRL(companyPlan?.amount)}
            </Muted>
          </Section>
        </Card>
        <Card>
          <Section>
            <h2>{t('limits')}</h2>
            <Limits>
              <dt>{t('users')}</dt>
              <dd>{companyPlan?.users ?? '—'}</dd>
              <dt>{t('connections')}</dt>
              <dd>{companyPlan?.connections ?? '—'}</dd>
              <dt>{t('queues')}</dt>
              <dd>{companyPlan?.queues ?? '—'}</dd>
            </Limits>
          </Section>
        </Card>
        <Card>
          <Section>
            <h2>{t('features')}</h2>
            <List aria-label={t('features')}>
              {PLAN_FEATURES.map((f) => {
                const on = Boolean(companyPlan?.[f]);
                return (
                  <li key={f} data-feature={f} data-enabled={on}>
                    <Mark $on={on}>
                      <Icon name={on ? 'check' : 'close'} size={16} title={on ? t('enabled') : t('disabled')} />
                    </Mark>
                    {t(`feature.${f}`)}
                  </li>
                );
              })}
            </List>
          </Section>
        </Card>
      </Grid>
    </section>
  );
}
