export { createGateway, type Gateway, type GatewayOptions } from './gateway';
export { gatewayTuningSchema, type GatewayTuning } from './config';
export { loadOperationsTable, type OperationRule } from './auth/operations-table';
export { ROUTES, type Route } from './routes';
export { publicSchema } from './schema';
export { SUBGRAPHS, appsOfSubgraphs, endpointVariable, type Subgraph } from './subgraphs';
export { responseFieldMask } from './response-field-mask';
