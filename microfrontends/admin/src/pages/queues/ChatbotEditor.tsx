import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { Button, IconButton, SelectField, TextField } from '@atendo/web-ui';
import { CheckboxField, TextAreaField } from '../../lib/fields';
import { AdminIcon } from '../../lib/parts';
import { QUEUE_TYPES, type NamedRef } from './api';
import { canAddChild, emptyOption, moveOption, optionErrors, updateOption, type OptionDraft } from './tree';

const Node = styled.li<{ $level: number }>`
  list-style: none;
  margin: 0 0 ${(p) => p.theme.space(1)};
  padding: ${(p) => p.theme.space(1.5)};
  border: 1px solid ${(p) => p.theme.colors.border};
  border-left: 4px solid ${(p) => p.theme.colors.primary};
  border-radius: ${(p) => p.theme.radius.md};
  background: ${(p) => (p.$level % 2 ? p.theme.colors.surface : p.theme.colors.surfaceAlt)};
`;

const Children = styled.ul`
  margin: ${(p) => p.theme.space(1)} 0 0;
  padding: 0 0 0 ${(p) => p.theme.space(2)};
`;

const Row = styled.div`
  display: grid;
  grid-template-columns: minmax(160px, 2fr) minmax(140px, 1fr) minmax(140px, 1fr);
  gap: 0 ${(p) => p.theme.space(1.5)};
  align-items: start;
  @media (max-width: 640px) { grid-template-columns: 1fr; }
`;

const Bar = styled.div`
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: ${(p) => p.theme.space(1)};
  small { color: ${(p) => p.theme.colors.textMuted}; }
`;

const Errors = styled.ul`
  margin: 0 0 ${(p) => p.theme.space(1)};
  padding-left: ${(p) => p.theme.space(2)};
  color: ${(p) => p.theme.colors.danger};
  font-size: ${(p) => p.theme.font.size.xs};
`;

export interface ChatbotTargets {
  queues: NamedRef[];
  users: NamedRef[];
  integrations: NamedRef[];
  files: NamedRef[];
}

interface Props {
  value: OptionDraft[];
  onChange: (tree: OptionDraft[]) => void;
  targets: ChatbotTargets;
  /** Show every option's errors (after a save attempt); otherwise only those of touched names. */
  showErrors: boolean;
}

/**
 * The chatbot option-tree editor (spec 2-tickets.md §3 "Chatbot option", §4 "Chatbot option tree", §5):
 * nested options edited in place: name (at least 4 characters, required to save), message, what the option
 * does (`queueType` text / attendent / queue / integration / file, with its target), close-ticket flag;
 * sub-options need the option's message first (and stop at 5 levels); options move up and down and are
 * removed in place. The tree is saved with the queue.
 */
export function ChatbotEditor({ value, onChange, targets, showErrors }: Props) {
  const { t } = useTranslation('admin');
  return (
    <div data-testid="chatbot-editor">
      <Bar>
        <Button variant="secondary" onClick={() => onChange([...value, emptyOption()])} data-testid="chatbot-add-root">
          <AdminIcon name="plus" size={18} />
          {t('queues.chatbot.add')}
        </Button>
        <small>{t('queues.chatbot.help')}</small>
      </Bar>
      {value.length === 0 ? <p>{t('queues.chatbot.empty')}</p> : null}
      <Children style={{ paddingLeft: 0 }}>
        {value.map((o, i) => (
          <OptionNode key={o.key} option={o} index={i} count={value.length} path={`${i + 1}`} level={1} tree={value} onTree={onChange} targets={targets} showErrors={showErrors} />
        ))}
      </Children>
    </div>
  );
}

function OptionNode({
  option,
  index,
  count,
  path,
  level,
  tree,
  onTree,
  targets,
  showErrors,
}: {
  option: OptionDraft;
  index: number;
  count: number;
  path: string;
  level: number;
  tree: OptionDraft[];
  onTree: (tree: OptionDraft[]) => void;
  targets: ChatbotTargets;
  showErrors: boolean;
}) {
  const { t } = useTranslation('admin');
  const set = (patch: Partial<OptionDraft>) => onTree(updateOption(tree, option.key, (o) => ({ ...o, ...patch })));
  const errors = showErrors ? optionErrors(option) : [];
  const addable = canAddChild(option, level);
  const target = (list: NamedRef[], field: 'optQueueId' | 'optUserId' | 'optIntegrationId' | 'optFileId', label: string, empty: string) => (
    <SelectField label={label} value={option[field] ? String(option[field]) : ''} onChange={(e) => set({ [field]: e.target.value ? Number(e.target.value) : null })} data-testid={`option-${path}-target`}>
      <option value="">{list.length ? t('queues.chatbot.choose') : empty}</option>
      {list.map((x) => (
        <option key={x.id} value={String(x.id)}>
          {x.name}
        </option>
      ))}
    </SelectField>
  );
  return (
    <Node $level={level} data-testid={`option-${path}`} aria-label={t('queues.chatbot.option', { path })}>
      {errors.length ? (
        <Errors role="alert">
          {errors.map((e) => (
            <li key={e}>{t(e)}</li>
          ))}
        </Errors>
      ) : null}
      <Row>
        <TextField label={t('queues.chatbot.name', { path })} value={option.name} maxLength={100} onChange={(e) => set({ name: e.target.value })} data-testid={`option-${path}-name`} />
        <SelectField label={t('queues.chatbot.type')} value={option.queueType} onChange={(e) => set({ queueType: e.target.value as OptionDraft['queueType'] })} data-testid={`option-${path}-type`}>
          {QUEUE_TYPES.map((q) => (
            <option key={q} value={q}>
              {t(`queues.chatbot.types.${q}`)}
            </option>
          ))}
        </SelectField>
        {option.queueType === 'queue'
          ? target(targets.queues, 'optQueueId', t('queues.chatbot.targetQueue'), t('queues.chatbot.noQueues'))
          : option.queueType === 'attendent'
            ? target(targets.users, 'optUserId', t('queues.chatbot.targetUser'), t('queues.chatbot.noUsers'))
            : option.queueType === 'integration'
              ? target(targets.integrations, 'optIntegrationId', t('queues.chatbot.targetIntegration'), t('queues.chatbot.noIntegrations'))
              : option.queueType === 'file'
                ? target(targets.files, 'optFileId', t('queues.chatbot.targetFile'), t('queues.chatbot.noFiles'))
                : <span />}
      </Row>
      <TextAreaField label={t('queues.chatbot.message')} rows={2} value={option.greetingMessage} onChange={(e) => set({ greetingMessage: e.target.value })} data-testid={`option-${path}-message`} />
      <Bar>
        <CheckboxField label={t('queues.chatbot.closeTicket')} checked={option.closeTicket} onChange={(v) => set({ closeTicket: v })} />
        <Button variant="text" disabled={!addable} onClick={() => set({ options: [...option.options, emptyOption()] })} title={addable ? undefined : t('queues.chatbot.needsMessage')} data-testid={`option-${path}-add`}>
          <AdminIcon name="plus" size={16} />
          {t('queues.chatbot.addSub')}
        </Button>
        {!addable && level < 5 ? <small>{t('queues.chatbot.needsMessage')}</small> : null}
        <span style={{ flex: 1 }} />
        <IconButton label={t('queues.chatbot.up', { path })} tone="default" disabled={index === 0} onClick={() => onTree(moveOption(tree, option.key, -1))}>
          <AdminIcon name="up" />
        </IconButton>
        <IconButton label={t('queues.chatbot.down', { path })} tone="default" disabled={index === count - 1} onClick={() => onTree(moveOption(tree, option.key, 1))}>
          <AdminIcon name="down" />
        </IconButton>
        <IconButton label={t('queues.chatbot.remove', { path })} tone="default" onClick={() => onTree(updateOption(tree, option.key, () => null))} data-testid={`option-${path}-remove`}>
          <AdminIcon name="trash" />
        </IconButton>
      </Bar>
      {option.options.length ? (
        <Children>
          {option.options.map((child, i) => (
            <OptionNode key={child.key} option={child} index={i} count={option.options.length} path={`${path}.${i + 1}`} level={level + 1} tree={tree} onTree={onTree} targets={targets} showErrors={showErrors} />
          ))}
        </Children>
      ) : null}
    </Node>
  );
}
