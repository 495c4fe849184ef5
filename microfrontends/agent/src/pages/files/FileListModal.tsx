import { useRef, useState } from 'react';
import { FieldArray, FormikProvider, useFormik, getIn } from 'formik';
import { useTranslation } from 'react-i18next';
import { toast } from 'react-toastify';
import styled from 'styled-components';
import { toastError } from '@atendo/web-api';
import { Button, IconButton, Modal, TextField } from '@atendo/web-ui';
import { DialogActions, TextAreaField, useFieldProps, yup } from '@atendo/web-kit';
import { AgentIcon } from '../../lib/parts';
import { createFileList, FILE_ACCEPT, MAX_OPTIONS, NAME_MAX, NAME_MIN, updateFileList, uploadFileList, type FileList } from './api';

/** One row of the option editor: `key` is local; `id` the stored option's. */
interface OptionRow {
  key: string;
  id?: number;
  name: string;
  mediaName: string | null;
  path: string | null;
}

/** The file list form's rules (spec 3-campaigns-and-tools.md §5: name at least 3 'nome muito curto', message required). */
export const fileListSchema = yup.object({
  name: yup.string().trim().min(NAME_MIN, 'agent:files.form.tooShort').max(NAME_MAX, 'validation.tooLong').required('validation.required'),
  message: yup.string().trim().max(4096, 'validation.tooLong').required('validation.required'),
  options: yup
    .array(yup.object({ name: yup.string().trim().max(NAME_MAX, 'validation.tooLong').required('validation.required') }))
    .max(MAX_OPTIONS, 'validation.tooLong'),
});

const Options = styled.ol`
  list-style: none;
  margin: 0 0 ${(p) => p.theme.space(1)};
  padding: 0;
  display: flex;
  flex-direction: column;
  gap: ${(p) => p.theme.space(1)};
  li { display: flex; align-items: flex-start; gap: ${(p) => p.theme.space(1)}; }
  li > div:first-child { flex: 1; min-width: 0; }
  .file { display: flex; align-items: center; gap: 4px; min-height: 40px; margin-top: 22px; max-width: 45%; }
  .file span { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; font-size: ${(p) => p.theme.font.size.sm}; }
  .file a { color: ${(p) => p.theme.colors.primary}; }
  .actions { margin-top: 22px; display: flex; }
`;

const Heading = styled.div`
  display: flex;
  align-items: center;
  justify-content: space-between;
  margin: ${(p) => p.theme.space(1)} 0;
  h3 { margin: 0; font-size: ${(p) => p.theme.font.size.md}; }
`;

let nextKey = 0;
const newKey = () => `new-${(nextKey += 1)}`;

/**
 * The file list dialog: name, multi-line message, and the options editor (each a name, a file picker and a
 * remove button; "+" adds one). Saving writes the list (`POST /files` or `PUT /files/{id}`), then, when the
 * answer has options, uploads the chosen files to `POST /files/uploadList/{id}` (each to the option at its
 * row, by the id the answer gave it).
 */
export function FileListModal({ record, onClose, onSaved }: { record: FileList | null; onClose: () => void; onSaved: (f: FileList) => void }) {
  const { t } = useTranslation('agent');
  const [files, setFiles] = useState<Record<string, File>>({});
  const pickers = useRef<Record<string, HTMLInputElement | null>>({});
  const formik = useFormik({
    initialValues: {
      name: record?.name ?? '',
      message: record?.message ?? '',
      options: (record?.options ?? []).map((o): OptionRow => ({ key: `opt-${o.id}`, id: o.id, name: o.name, mediaName: o.mediaName, path: o.path })),
    },
    validationSchema: fileListSchema,
    onSubmit: async (values) => {
      const body = { name: values.name.trim(), message: values.message, options: values.options.map((o) => ({ ...(o.id ? { id: o.id } : {}), name: o.name.trim() })) };
      try {
        let saved = record ? await updateFileList(record.id, body) : await createFileList(body);
        const uploads = saved.options.length ? values.options.flatMap((o, i) => (files[o.key] && saved.options[i] ? [{ optionId: saved.options[i].id, file: files[o.key] }] : [])) : [];
        if (uploads.length) saved = await uploadFileList(saved.id, uploads);
        onSaved(saved);
        toast.success(t('files.toasts.saved'));
        onClose();
      } catch (err) {
        toastError(err);
      }
    },
  });
  const field = useFieldProps(formik);
  const optionError = (i: number) => {
    const e = getIn(formik.errors, `options.${i}.name`);
    const touched = getIn(formik.touched, `options.${i}.name`) || formik.submitCount > 0;
    return touched && typeof e === 'string' ? t(e.startsWith('agent:') ? e.slice(6) : e, { ns: e.startsWith('agent:') ? 'agent' : 'translation' }) : false;
  };

  return (
    <Modal open title={t(record ? 'files.editTitle' : 'files.addTitle')} onClose={onClose} closeLabel={t('common.close')} width={640}>
      <FormikProvider value={formik}>
        <form onSubmit={formik.handleSubmit} noValidate data-testid="file-list-form">
          <TextField label={t('files.form.name')} {...field('name')} data-testid="file-list-name" />
          <TextAreaField label={t('files.form.message')} rows={4} {...field('message')} data-testid="file-list-message" />
          <FieldArray name="options">
            {(arr) => (
              <>
                <Heading>
                  <h3>{t('files.form.options')}</h3>
                  <IconButton label={t('files.form.addOption')} tone="default" onClick={() => arr.push({ key: newKey(), name: '', mediaName: null, path: null })} disabled={formik.values.options.length >= MAX_OPTIONS} data-testid="file-option-add">
                    <AgentIcon name="plus" />
                  </IconButton>
                </Heading>
                <Options data-testid="file-options">
                  {formik.values.options.map((o, i) => {
                    const chosen = files[o.key];
                    return (
                      <li key={o.key} data-testid={`file-option-${i}`}>
                        <TextField
                          label={t('files.form.optionName', { n: i + 1 })}
                          name={`options.${i}.name`}
                          value={o.name}
                          onChange={formik.handleChange}
                          onBlur={formik.handleBlur}
                          error={optionError(i)}
                          data-testid={`file-option-name-${i}`}
                        />
                        <div className="file">
                          <AgentIcon name="attach" size={16} />
                          {chosen ? (
                            <span data-testid={`file-option-file-${i}`}>{chosen.name}</span>
                          ) : o.path ? (
                            <a href={o.path} target="_blank" rel="noopener noreferrer" data-testid={`file-option-file-${i}`}>
                              {o.mediaName || t('files.form.file')}
                            </a>
                          ) : (
                            <span>{t('files.form.noFile')}</span>
                          )}
                        </div>
                        <div className="actions">
                          <input
                            ref={(el) => {
                              pickers.current[o.key] = el;
                            }}
                            type="file"
                            accept={FILE_ACCEPT}
                            hidden
                            onChange={(e) => {
                              const f = e.target.files?.[0];
                              if (f) setFiles((all) => ({ ...all, [o.key]: f }));
                            }}
                            data-testid={`file-option-input-${i}`}
                          />
                          <IconButton label={t('files.form.chooseFile', { n: i + 1 })} tone="default" onClick={() => pickers.current[o.key]?.click()}>
                            <AgentIcon name="upload" />
                          </IconButton>
                          <IconButton
                            label={t('files.form.removeOption', { n: i + 1 })}
                            tone="default"
                            onClick={() => {
                              arr.remove(i);
                              setFiles(({ [o.key]: _gone, ...rest }) => rest);
                            }}
                            data-testid={`file-option-remove-${i}`}
                          >
                            <AgentIcon name="trash" />
                          </IconButton>
                        </div>
                      </li>
                    );
                  })}
                </Options>
              </>
            )}
          </FieldArray>
          <DialogActions>
            <Button variant="text" onClick={onClose}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" disabled={formik.isSubmitting} data-testid="file-list-submit">
              {t(record ? 'common.save' : 'common.add')}
            </Button>
          </DialogActions>
        </form>
      </FormikProvider>
    </Modal>
  );
}
