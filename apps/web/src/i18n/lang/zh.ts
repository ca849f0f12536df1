import antd from 'antd/locale/zh_CN';
import errors from '@loupe/contracts/locales/zh/errors.json';
import { makeBundle } from '../bundle';

// Every src/locales/zh/<namespace>.json, including namespaces other pages add later. Other languages' files are
// separate chunks: a visit loads only the language it shows.
const files = import.meta.glob<Record<string, unknown>>('../../locales/zh/*.json', { eager: true, import: 'default' });

export default makeBundle(files, errors, antd);
