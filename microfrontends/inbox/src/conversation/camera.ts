/** True when the browser can open a camera (getUserMedia): the camera button shows only then. */
export function cameraAvailable(): boolean {
  return typeof navigator !== 'undefined' && Boolean(navigator.mediaDevices?.getUserMedia);
}
