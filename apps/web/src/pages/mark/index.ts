export { markPages } from './MarkPage';
