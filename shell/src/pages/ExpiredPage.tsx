import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { api, errorText, formatBRL, formatDate, session, useCompanyPlan, useSessionUser } from '@atendo/web-api';
import { Button, Card, Icon, Muted, Spinner } from '@atendo/web-ui';
import { logout, subscriptionStatus } from '../auth';
import { HOME_AFTER_LOGIN } from '../routes';

const Page = styled.div`
  padding: ${(p) => p.theme.space(3)};
  max-width: 720px;
`;

const Box = styled(Card)`
  display: flex;
  flex-direction: column;
  align-items: center;
  gap: ${(p) => p.theme.space(1.5)};
  padding: ${(p) => p.theme.space(5)} ${(p) => p.theme.space(3)};
  text-align: center;
  color: ${(p) => p.theme.colors.textMuted};
  > svg { color: ${(p) => p.theme.colors.danger}; }
  h2 { margin: 0; color: ${(p) => p.theme.colors.text}; font-size: ${(p) => p.theme.font.size.xl}; }
`;

const Facts = styled.dl`
  display: grid;
  grid-template-columns: auto auto;
  gap: ${(p) => p.theme.space(0.75)} ${(p) => p.theme.space(2)};
  margin: ${(p) => p.theme.space(1)} 0;
  text-align: left;
  dt { color: ${(p) => p.theme.colors.textMuted}; }
  dd { margin: 0; color: ${(p) => p.theme.colors.text}; font-weight: 600; }
`;

const Steps = styled.ol`
  text-align: left;
  margin: 0;
  padding-left: ${(p) => p.theme.space(2.5)};
  li { margin: ${(p) => p.theme.space(0.5)} 0; }
`;

const Actions = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: ${(p) => p.theme.space(1)};
  justify-content: center;
`;

/** How the page reloads the app once renewed (a full load; replaced in tests, where jsdom cannot navigate). */
export const expiredPageNavigation = { reload: (path: string) => window.location.assign(path) };

/** The four recurrences' texts (1-platform.md §3 Company); other values are shown as stored. */
const RECURRENCES = ['MONTHLY', 'BIMONTHLY', 'QUARTERLY', 'SEMESTER', 'YEARLY', 'MENSAL', 'BIMESTRAL', 'TRIMESTRAL', 'SEMESTRAL', 'ANUAL'];

/**
 * /financeiro-aberto (spec 1-platform.md §2, §4 "Sign-in"): where a company past its due date lands. Shows
 * the company, its plan, the amount and the due date (`GET /companies/listPlan/:id`, which the API keeps
 * open to expired companies; every other private route answers 403 ERR_SUBSCRIPTION_EXPIRED), and what to
 * do next: settle the invoice with the platform's support, who renews the company. "Check again" refreshes
 * the session (a renewal by a super admin reopens the company at once) and, when the due date has moved,
 * reloads the app on /tickets; "Sign out" ends the session.
 */
export function ExpiredPage() {
  const { t } = useTranslation();
  const user = useSessionUser();
  const plan = useCompanyPlan();
  const [checking, setChecking] = useState(false);
  const [checkError, setCheckError] = useState<string | null>(null);
  const [stillExpired, setStillExpired] = useState(false);
  const company = plan.data && typeof plan.data === 'object' && 'plan' in plan.data ? plan.data : undefined;
  const { dueDate, expired } = subscriptionStatus(company ?? user?.company ?? null);
  const recurrence = company?.recurrence ? String(company.recurrence).toUpperCase() : '';

  const checkAgain = async () => {
    setChecking(true);
    setCheckError(null);
    setStillExpired(false);
    try {
      const { user: fresh } = await api.refresh();
      if (!subscriptionStatus(fresh.company ?? null).expired) {
        session.signIn(fresh);
        // A full load: the socket and every cached answer start again with the reopened company.
        expiredPageNavigation.reload(HOME_AFTER_LOGIN);
        return;
      }
      await plan.refetch();
      setStillExpired(true);
    } catch (err) {
      setCheckError(errorText(err));
    } finally {
      setChecking(false);
    }
  };

  return (
    <Page>
      <Box role="alert" data-testid="subscription-expired">
        <Icon name="warning" size={48} />
        <h2>{t('expired.title')}</h2>
        {expired || !company ? <p>{t('expired.text', { date: formatDate(dueDate) })}</p> : <p>{t('expired.renewed')}</p>}
        {plan.isPending ? (
          <Spinner size={24} label={t('common.loading')} />
        ) : plan.isError ? (
          <Muted data-testid="expired-plan-error">
            {errorText(plan.error)}{' '}
            <Button variant="secondary" onClick={() => void plan.refetch()}>{t('expired.retry')}</Button>
          </Muted>
        ) : company ? (
          <Facts data-testid="expired-facts">
            <dt>{t('expired.company')}</dt>
            <dd>{company.name}</dd>
            <dt>{t('expired.plan')}</dt>
            <dd>{company.plan?.name ?? '-'}</dd>
            <dt>{t('expired.amount')}</dt>
            <dd>
              {formatBRL(company.plan?.amount)}
              {recurrence && RECURRENCES.includes(recurrence) ? ` / ${t(`expired.recurrence.${recurrence}`)}` : ''}
            </dd>
            <dt>{t('expired.dueDate')}</dt>
            <dd>{formatDate(dueDate)}</dd>
          </Facts>
        ) : null}
        <Steps>
          <li>{t('expired.step1')}</li>
          <li>{t('expired.step2')}</li>
          <li>{t('expired.step3')}</li>
        </Steps>
        <Muted>{t('expired.contact')}</Muted>
        {stillExpired ? <Muted data-testid="still-expired">{t('expired.stillExpired')}</Muted> : null}
        {checkError ? <Muted role="status">{checkError}</Muted> : null}
        <Actions>
          <Button onClick={() => void checkAgain()} disabled={checking} data-testid="expired-check">
            {checking ? t('expired.checking') : t('expired.check')}
          </Button>
          <Button variant="secondary" onClick={() => void logout()}>{t('expired.signOut')}</Button>
        </Actions>
      </Box>
    </Page>
  );
}
