import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import styled from 'styled-components';
import { Button, Modal } from '@atendo/web-ui';
import { DialogActions } from './parts';

const Frame = styled.div`
  display: flex;
  justify-content: center;
  background: #000;
  border-radius: ${(p) => p.theme.radius.md};
  overflow: hidden;
  video, img { max-width: 100%; max-height: 60vh; }
`;

/**
 * Camera capture (spec 2-tickets.md §2 "Message input"; issue 20 item 6): the camera's live picture, a
 * capture button, then the shot with "take another" and "attach photo" (a JPEG file). The camera is released
 * when the dialog closes. A browser or device without a camera shows the error text.
 */
export default function CameraCapture({ open, onClose, onShot }: { open: boolean; onClose: () => void; onShot: (file: File) => void }) {
  const { t } = useTranslation('inbox');
  const video = useRef<HTMLVideoElement>(null);
  const stream = useRef<MediaStream | null>(null);
  const [shot, setShot] = useState<{ blob: Blob; url: string } | null>(null);
  const [error, setError] = useState(false);

  useEffect(() => {
    if (!open || shot) return undefined;
    let cancelled = false;
    setError(false);
    navigator.mediaDevices
      .getUserMedia({ video: { facingMode: 'environment' }, audio: false })
      .then((media) => {
        if (cancelled) return media.getTracks().forEach((tr) => tr.stop());
        stream.current = media;
        if (video.current) {
          video.current.srcObject = media;
          void video.current.play().catch(() => undefined);
        }
      })
      .catch(() => setError(true));
    return () => {
      cancelled = true;
      stream.current?.getTracks().forEach((tr) => tr.stop());
      stream.current = null;
    };
  }, [open, shot]);

  useEffect(() => () => void (shot && URL.revokeObjectURL(shot.url)), [shot]);

  const capture = () => {
    const v = video.current;
    if (!v || !v.videoWidth) return;
    const canvas = document.createElement('canvas');
    canvas.width = v.videoWidth;
    canvas.height = v.videoHeight;
    canvas.getContext('2d')?.drawImage(v, 0, 0);
    canvas.toBlob((blob) => blob && setShot({ blob, url: URL.createObjectURL(blob) }), 'image/jpeg', 0.9);
  };

  const close = () => {
    setShot(null);
    onClose();
  };

  return (
    <Modal open={open} title={t('compose.cameraTitle')} onClose={close} closeLabel={t('conversation.close')} width={640}>
      {error ? (
        <p role="alert">{t('compose.cameraError')}</p>
      ) : (
        <Frame>{shot ? <img src={shot.url} alt={t('compose.cameraTitle')} data-testid="camera-shot" /> : <video ref={video} autoPlay playsInline muted data-testid="camera-video" />}</Frame>
      )}
      <DialogActions>
        <Button variant="text" onClick={close}>
          {t('conversation.cancel')}
        </Button>
        {shot ? (
          <>
            <Button variant="secondary" onClick={() => setShot(null)} data-testid="camera-retake">
              {t('compose.retake')}
            </Button>
            <Button
              onClick={() => {
                onShot(new File([shot.blob], `foto-${Date.now()}.jpg`, { type: 'image/jpeg' }));
                close();
              }}
              data-testid="camera-use"
            >
              {t('compose.useShot')}
            </Button>
          </>
        ) : (
          <Button onClick={capture} disabled={error} data-testid="camera-capture">
            {t('compose.capture')}
          </Button>
        )}
      </DialogActions>
    </Modal>
  );
}
