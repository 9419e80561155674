export { createGateway, type Gateway, type GatewayOptions } from './gateway';
export { loadOperationsTable, type OperationRule } from './auth/operations-table';
export { ROUTES } from './routes';
export { publicSchema } from './schema';
