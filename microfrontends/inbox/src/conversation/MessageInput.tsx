import { lazy, Suspense, useEffect, useMemo, useRef, useState, type ChangeEvent, type ClipboardEvent, type DragEvent, type KeyboardEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import styled, { css, keyframes } from 'styled-components';
import { toastError, useSessionUser, useSocketEvent } from '@atendo/web-api';
import { Button, IconButton, Modal, Popover, Spinner, useThemeMode } from '@atendo/web-ui';
import { fetchQuickMessages, sendMedia, sendText } from './api';
import { ContactPicker } from './ContactPicker';
import { formatTimer, matchQuickReplies, MIN_RECORDING_BYTES, quickReplyLabel } from './format';
import { ConvIcon } from './icons';
import { DialogActions, Switch } from './parts';
import { readSignature, writeSignature } from './prefs';
import type { ContactListItem, Message, QuickMessage } from './types';
import { audioExtension, useRecorder } from './useRecorder';
import { cameraAvailable } from './camera';

/** The emoji picker (emoji-mart and its data) is its own chunk, loaded when first opened. */
const EmojiPicker = lazy(() => import('./EmojiPicker'));
/** The camera dialog, loaded when first opened. */
const CameraCapture = lazy(() => import('./CameraCapture'));
import './i18n';

/** Most rows the text box grows to (spec §2). */
export const INPUT_MAX_ROWS = 5;
/** Statuses a ticket must have to send (spec §5). */
export const SENDABLE_STATUSES = ['open', 'group'];

export interface MessageInputProps {
  ticketId: number;
  /** The ticket's status: sending is only possible for open and group tickets. */
  status: string;
  /** The message being replied to. */
  quoted?: Message | null;
  onCancelQuote?: () => void;
  /** After a successful send, with the message the API answered (the rest arrives live). */
  onSent?: (message: Message | undefined) => void;
}

const Wrap = styled.div`
  position: relative;
  display: flex;
  flex-direction: column;
  gap: 6px;
  padding: 8px 12px 10px;
  border-top: 1px solid ${(p) => p.theme.colors.border};
  background: ${(p) => p.theme.colors.surfaceAlt};
`;

const Bar = styled.div`
  display: flex;
  align-items: flex-end;
  gap: 4px;
`;

const TextBox = styled.textarea<{ $private: boolean }>`
  flex: 1;
  min-width: 0;
  resize: none;
  padding: 9px 12px;
  border: 1px solid ${(p) => p.theme.colors.border};
  border-radius: 20px;
  background: ${(p) => p.theme.colors.surface};
  line-height: 20px;
  max-height: ${INPUT_MAX_ROWS * 20 + 20}px;
  overflow-y: auto;
  outline: none;
  &:focus { border-color: ${(p) => p.theme.colors.primary}; }
  &::placeholder { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
  &:disabled { opacity: 0.6; cursor: not-allowed; }
  ${(p) =>
    p.$private &&
    css`
      background: ${p.theme.mode === 'dark' ? '#3b3517' : '#FFF8C4'};
      border-style: dashed;
      border-color: ${p.theme.colors.warning};
    `}
`;

const Options = styled.div`
  display: flex;
  gap: 16px;
  flex-wrap: wrap;
  padding: 0 4px;
`;

const Strip = styled.div`
  display: flex;
  align-items: center;
  gap: 8px;
  padding: 6px 10px;
  border-radius: ${(p) => p.theme.radius.md};
  background: ${(p) => p.theme.colors.surface};
  border-left: 4px solid ${(p) => p.theme.colors.primary};
  font-size: ${(p) => p.theme.font.size.sm};
  .text { flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  .label { font-weight: ${(p) => p.theme.font.weight.bold}; color: ${(p) => p.theme.colors.primary}; margin-right: 6px; }
`;

const Files = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
  display: flex;
  flex-wrap: wrap;
  gap: 6px;
  li {
    display: inline-flex;
    align-items: center;
    gap: 6px;
    max-width: 260px;
    padding: 2px 4px 2px 10px;
    border-radius: ${(p) => p.theme.radius.round};
    background: ${(p) => p.theme.colors.surface};
    border: 1px solid ${(p) => p.theme.colors.border};
    font-size: ${(p) => p.theme.font.size.xs};
  }
  li span { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  li button { width: 24px; height: 24px; }
`;

const QuickList = styled.ul`
  position: absolute;
  left: 12px;
  right: 12px;
  bottom: 100%;
  z-index: 5;
  max-height: 240px;
  overflow-y: auto;
  margin: 0 0 4px;
  padding: 4px 0;
  list-style: none;
  background: ${(p) => p.theme.colors.surface};
  border: 1px solid ${(p) => p.theme.colors.border};
  border-radius: ${(p) => p.theme.radius.md};
  box-shadow: ${(p) => p.theme.shadow.md};
  li button {
    display: flex;
    align-items: center;
    gap: 8px;
    width: 100%;
    padding: 8px 12px;
    border: none;
    background: transparent;
    text-align: left;
    cursor: pointer;
  }
  li button[aria-selected='true'], li button:hover { background: ${(p) => p.theme.colors.primarySoft}; }
  .empty { padding: 8px 12px; color: ${(p) => p.theme.colors.textMuted}; }
`;

const Thumb = styled.img`
  width: 40px;
  height: 40px;
  object-fit: cover;
  border-radius: 6px;
`;

const DropZone = styled.div`
  position: absolute;
  inset: 0;
  z-index: 6;
  display: flex;
  align-items: center;
  justify-content: center;
  border: 2px dashed ${(p) => p.theme.colors.primary};
  border-radius: ${(p) => p.theme.radius.md};
  background: ${(p) => p.theme.colors.primarySoft};
  color: ${(p) => p.theme.colors.primary};
  font-weight: ${(p) => p.theme.font.weight.bold};
  pointer-events: none;
`;

const pulse = keyframes`50% { opacity: 0.3; }`;

const Recording = styled.div`
  flex: 1;
  display: flex;
  align-items: center;
  gap: 8px;
  height: 40px;
  padding: 0 12px;
  border-radius: 20px;
  background: ${(p) => p.theme.colors.surface};
  color: ${(p) => p.theme.colors.danger};
  font-variant-numeric: tabular-nums;
  .dot { width: 10px; height: 10px; border-radius: 50%; background: ${(p) => p.theme.colors.danger}; animation: ${pulse} 1s infinite; }
`;

/** Object URLs of the image attachments (for their previews), revoked when they go away. */
function useFilePreviews(files: File[]): (string | null)[] {
  const [urls, setUrls] = useState<(string | null)[]>([]);
  useEffect(() => {
    const made = files.map((f) => (f.type.startsWith('image/') && typeof URL.createObjectURL === 'function' ? URL.createObjectURL(f) : null));
    setUrls(made);
    return () => made.forEach((u) => u && URL.revokeObjectURL(u));
  }, [files]);
  return urls;
}

/**
 * The quick replies of the '/' popover (cached by react-query for the page; the same quick messages as the
 * /quick-messages screen): forgotten on every `company-{cid}-quickmessage` event, so one created, edited or
 * removed anywhere shows the next time '/' is typed.
 */
function useQuickReplies(enabled: boolean) {
  const client = useQueryClient();
  const companyId = useSessionUser()?.companyId;
  useSocketEvent(companyId ? `company-${companyId}-quickmessage` : null, () => void client.invalidateQueries({ queryKey: ['inbox', 'quickMessages'] }));
  return useQuery({ queryKey: ['inbox', 'quickMessages'], queryFn: ({ signal }) => fetchQuickMessages(signal), enabled, staleTime: 60_000 });
}

/** Fetches a quick reply's media file (its signed URL) as a File. */
async function quickReplyFile(q: QuickMessage): Promise<File> {
  const res = await fetch(q.mediaPath as string, { credentials: 'include' });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  const blob = await res.blob();
  return new File([blob], q.mediaName || 'file', { type: blob.type || q.mediaType || 'application/octet-stream' });
}

/**
 * The message input (spec 2-tickets.md §2 "Message input", §5): a text box growing to 5 rows (Enter sends,
 * Shift+Enter breaks the line; blank text is not sent); disabled while busy, recording, or when the ticket
 * is not open/group. Quick replies pop up when the text starts with '/' (choosing one inserts its text, or
 * sends its media); a private-note switch (`isPrivate: true`); a signature switch (default on, remembered;
 * sent as `signMessage`); attachments (several files, one multipart request; picked, pasted or dropped, image
 * previews); an emoji picker (emoji-mart, lazy); camera capture where the browser has one; voice recording
 * (mm:ss timer, send or cancel; recordings under 10,000 bytes are discarded; sent as `voice`, converted by
 * the server to the channel's voice-note format); a send-contact
 * dialog (vCard); and the reply strip of a quoted message.
 */
export function MessageInput({ ticketId, status, quoted, onCancelQuote, onSent }: MessageInputProps) {
  const { t } = useTranslation('inbox');
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [isPrivate, setIsPrivate] = useState(false);
  const [signMessage, setSignMessage] = useState(readSignature);
  const [files, setFiles] = useState<File[]>([]);
  const [contactOpen, setContactOpen] = useState(false);
  const [active, setActive] = useState(0);
  const [quickDismissed, setQuickDismissed] = useState(false);
  const box = useRef<HTMLTextAreaElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const emojiAnchor = useRef<HTMLButtonElement>(null);
  const [emojiOpen, setEmojiOpen] = useState(false);
  const [cameraOpen, setCameraOpen] = useState(false);
  const [dragging, setDragging] = useState(false);
  const { i18n } = useTranslation();
  const dark = useThemeMode() === 'dark';
  const previews = useFilePreviews(files);
  const recorder = useRecorder();
  const recording = recorder.status !== 'idle';
  const sendable = SENDABLE_STATUSES.includes(status);
  const disabled = busy || recording || !sendable;

  const quickOpen = sendable && !quickDismissed && text.startsWith('/') && !text.includes('\n');
  const quickReplies = useQuickReplies(quickOpen);
  const matches = useMemo(() => (quickOpen ? matchQuickReplies(text, quickReplies.data ?? []) : []), [quickOpen, text, quickReplies.data]);
  useEffect(() => setActive(0), [text]);

  // Reset the draft when another ticket is shown.
  useEffect(() => {
    setText('');
    setFiles([]);
    setIsPrivate(false);
    recorder.cancel();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ticketId]);

  const rows = Math.min(INPUT_MAX_ROWS, Math.max(1, text.split('\n').length));

  const finish = (message: Message | undefined) => {
    setText('');
    setFiles([]);
    onCancelQuote?.();
    onSent?.(message);
    setTimeout(() => box.current?.focus(), 0);
  };

  const run = async (work: () => Promise<Message | undefined>, onError?: () => void) => {
    setBusy(true);
    try {
      finish(await work());
    } catch (err) {
      onError?.();
      toastError(err);
    } finally {
      setBusy(false);
    }
  };

  const send = () => {
    if (busy || recording || !sendable) return;
    const body = text.trim();
    if (files.length) {
      void run(() => sendMedia(ticketId, files, { caption: body, isPrivate, signMessage, quotedMsgId: quoted?.id }));
      return;
    }
    if (!body) return;
    // The box empties at once (the message shows live, maybe before the answer); a failed send puts the text back.
    const draft = text;
    setText('');
    void run(() => sendText(ticketId, { body, isPrivate, signMessage, quotedMsg: quoted ? { id: quoted.id } : null }), () => setText(draft));
  };

  const chooseQuick = (q: QuickMessage) => {
    setQuickDismissed(false);
    if (q.mediaPath) {
      void run(async () => sendMedia(ticketId, [await quickReplyFile(q)], { caption: q.message, isPrivate, signMessage, quotedMsgId: quoted?.id }));
      return;
    }
    setText(q.message);
    setTimeout(() => box.current?.focus(), 0);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (quickOpen && matches.length) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        setActive((i) => (i + (e.key === 'ArrowDown' ? 1 : matches.length - 1)) % matches.length);
        return;
      }
      if (e.key === 'Escape') {
        e.preventDefault();
        setQuickDismissed(true);
        return;
      }
      if ((e.key === 'Enter' || e.key === 'Tab') && !e.shiftKey) {
        e.preventDefault();
        chooseQuick(matches[Math.min(active, matches.length - 1)]);
        return;
      }
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      send();
    }
  };

  const onText = (e: ChangeEvent<HTMLTextAreaElement>) => {
    setText(e.target.value);
    if (!e.target.value.startsWith('/')) setQuickDismissed(false);
  };

  const onFiles = (e: ChangeEvent<HTMLInputElement>) => {
    const picked = Array.from(e.target.files ?? []);
    if (picked.length) setFiles((list) => [...list, ...picked]);
    e.target.value = '';
  };

  /** Adds files (picked, pasted, dropped or shot) to the attachments. */
  const addFiles = (list: File[]) => {
    if (list.length) setFiles((current) => [...current, ...list]);
  };

  /** Pasted files (e.g. a copied screenshot) become attachments; pasted text is typed as usual. */
  const onPaste = (e: ClipboardEvent<HTMLTextAreaElement>) => {
    const pasted = Array.from(e.clipboardData?.files ?? []);
    if (!pasted.length) return;
    e.preventDefault();
    addFiles(pasted);
  };

  const onDragOver = (e: DragEvent<HTMLDivElement>) => {
    if (!sendable || !Array.from(e.dataTransfer?.types ?? []).includes('Files')) return;
    e.preventDefault();
    setDragging(true);
  };

  const onDrop = (e: DragEvent<HTMLDivElement>) => {
    setDragging(false);
    if (!sendable) return;
    const dropped = Array.from(e.dataTransfer?.files ?? []);
    if (!dropped.length) return;
    e.preventDefault();
    addFiles(dropped);
  };

  /** Puts `emoji` at the caret of the text box. */
  const insertEmoji = (emoji: string) => {
    const el = box.current;
    const start = el?.selectionStart ?? text.length;
    const end = el?.selectionEnd ?? text.length;
    setText((v) => v.slice(0, start) + emoji + v.slice(end));
    setTimeout(() => {
      el?.focus();
      el?.setSelectionRange(start + emoji.length, start + emoji.length);
    }, 0);
  };

  const startRecording = async () => {
    try {
      await recorder.start();
    } catch (err) {
      toastError(err instanceof Error ? err.message : err);
    }
  };

  const sendRecording = async () => {
    const blob = await recorder.stop();
    if (!blob || blob.size < MIN_RECORDING_BYTES) {
      toast.info(t('conversation.input.recordingTooShort'), { toastId: 'recording-too-short' });
      return;
    }
    const type = blob.type || 'audio/webm';
    const file = new File([blob], `audio-${Date.now()}.${audioExtension(type)}`, { type });
    await run(() => sendMedia(ticketId, [file], { isPrivate, quotedMsgId: quoted?.id, voice: true }));
  };

  const sendContact = (c: ContactListItem) => {
    setContactOpen(false);
    void run(() => sendText(ticketId, { vCard: { name: c.name, number: c.number }, isPrivate, quotedMsg: quoted ? { id: quoted.id } : null }));
  };

  const placeholder = !sendable ? t('conversation.input.notOpen') : isPrivate ? t('conversation.input.placeholderPrivate') : t('conversation.input.placeholder');
  const canSend = !disabled && (text.trim().length > 0 || files.length > 0);
  const quotedWho = quoted ? (quoted.fromMe ? t('conversation.you') : (quoted.contact?.name ?? '')) : '';

  return (
    <Wrap data-testid="message-input" onDragOver={onDragOver} onDragLeave={() => setDragging(false)} onDrop={onDrop}>
      {dragging ? <DropZone data-testid="drop-zone">{t('compose.dropHere')}</DropZone> : null}
      {quickOpen ? (
        <QuickList role="listbox" aria-label={t('conversation.input.quickReplies')} data-testid="quick-replies">
          {quickReplies.isPending ? <li className="empty">{t('conversation.loading')}</li> : null}
          {!quickReplies.isPending && matches.length === 0 ? <li className="empty">{t('conversation.input.noQuickReplies')}</li> : null}
          {matches.map((q, i) => (
            <li key={q.id}>
              <button
                type="button"
                role="option"
                aria-selected={i === active}
                onMouseDown={(e) => e.preventDefault()}
                onClick={() => chooseQuick(q)}
                data-testid="quick-reply"
                title={q.message}
              >
                {q.mediaPath ? <ConvIcon name="attach" size={16} /> : null}
                {quickReplyLabel(q)}
              </button>
            </li>
          ))}
        </QuickList>
      ) : null}
      {quoted ? (
        <Strip data-testid="reply-strip">
          <ConvIcon name="reply" size={16} />
          <span className="text">
            <span className="label">{t('conversation.input.replyingTo', { name: quotedWho })}</span>
            {quoted.body}
          </span>
          <IconButton label={t('conversation.input.cancelReply')} tone="default" onClick={onCancelQuote} style={{ width: 28, height: 28 }}>
            <ConvIcon name="close" size={16} />
          </IconButton>
        </Strip>
      ) : null}
      {files.length ? (
        <Files aria-label={t('conversation.input.attachments')} data-testid="attachments">
          {files.map((f, i) => (
            <li key={`${f.name}-${i}`} data-testid="attachment">
              {previews[i] ? <Thumb src={previews[i]!} alt={t('compose.previewOf', { name: f.name })} data-testid="attachment-preview" /> : <ConvIcon name="file" size={14} />}
              <span title={f.name}>{f.name}</span>
              <IconButton label={t('conversation.input.removeFile', { name: f.name })} tone="default" onClick={() => setFiles((list) => list.filter((_x, j) => j !== i))} disabled={busy}>
                <ConvIcon name="close" size={14} />
              </IconButton>
            </li>
          ))}
        </Files>
      ) : null}
      <Options>
        <Switch label={t('conversation.input.private')} checked={isPrivate} onChange={setIsPrivate} disabled={!sendable} testId="private-switch" />
        <Switch
          label={t('conversation.input.signature')}
          checked={signMessage}
          onChange={(v) => {
            setSignMessage(v);
            writeSignature(v);
          }}
          disabled={!sendable}
          testId="signature-switch"
        />
      </Options>
      <Bar>
        <input ref={fileInput} type="file" multiple hidden onChange={onFiles} data-testid="file-input" />
        <IconButton label={t('conversation.input.attach')} tone="default" onClick={() => fileInput.current?.click()} disabled={disabled}>
          <ConvIcon name="attach" />
        </IconButton>
        <IconButton label={t('conversation.input.sendContact')} tone="default" onClick={() => setContactOpen(true)} disabled={disabled}>
          <ConvIcon name="person" />
        </IconButton>
        {cameraAvailable() ? (
          <IconButton label={t('compose.camera')} tone="default" onClick={() => setCameraOpen(true)} disabled={disabled} data-testid="camera-button">
            <ConvIcon name="camera" />
          </IconButton>
        ) : null}
        <IconButton ref={emojiAnchor} label={t('compose.emoji')} tone="default" aria-haspopup="dialog" aria-expanded={emojiOpen} onClick={() => setEmojiOpen((o) => !o)} disabled={disabled} data-testid="emoji-button">
          <ConvIcon name="smile" />
        </IconButton>
        {recording ? (
          <>
            <Recording role="timer" aria-label={t('conversation.input.recordingNow')} data-testid="recording">
              <span className="dot" aria-hidden="true" />
              {formatTimer(recorder.seconds)}
            </Recording>
            <IconButton label={t('conversation.input.cancelRecording')} tone="default" onClick={() => recorder.cancel()} disabled={busy}>
              <ConvIcon name="close" />
            </IconButton>
            <IconButton label={t('conversation.input.sendRecording')} tone="default" onClick={() => void sendRecording()} disabled={busy || recorder.status !== 'recording'}>
              <ConvIcon name="send" />
            </IconButton>
          </>
        ) : (
          <>
            <TextBox
              ref={box}
              value={text}
              onChange={onText}
              onKeyDown={onKeyDown}
              onPaste={onPaste}
              rows={rows}
              placeholder={placeholder}
              disabled={disabled}
              aria-label={t('conversation.input.label')}
              $private={isPrivate}
              data-testid="message-text"
            />
            {canSend || files.length ? (
              <IconButton label={t('conversation.input.send')} tone="default" onClick={send} disabled={!canSend} data-testid="send-button">
                <ConvIcon name="send" />
              </IconButton>
            ) : (
              <IconButton label={t('conversation.input.record')} tone="default" onClick={() => void startRecording()} disabled={disabled} data-testid="record-button">
                <ConvIcon name="mic" />
              </IconButton>
            )}
          </>
        )}
      </Bar>
      <Popover open={emojiOpen} onClose={() => setEmojiOpen(false)} anchorRef={emojiAnchor} label={t('compose.emoji')} align="start" width={352} maxHeight={440}>
        {emojiOpen ? (
          <Suspense fallback={<Spinner size={24} label={t('compose.emojiLoading')} />}>
            <EmojiPicker onPick={insertEmoji} language={i18n.language} dark={dark} />
          </Suspense>
        ) : null}
      </Popover>
      {cameraOpen ? (
        <Suspense fallback={null}>
          <CameraCapture open={cameraOpen} onClose={() => setCameraOpen(false)} onShot={(file) => addFiles([file])} />
        </Suspense>
      ) : null}
      <Modal open={contactOpen} title={t('conversation.input.sendContactTitle')} onClose={() => setContactOpen(false)} closeLabel={t('conversation.close')}>
        {contactOpen ? <ContactPicker onPick={sendContact} autoFocus /> : null}
        <DialogActions>
          <Button variant="text" onClick={() => setContactOpen(false)}>
            {t('conversation.cancel')}
          </Button>
        </DialogActions>
      </Modal>
    </Wrap>
  );
}
