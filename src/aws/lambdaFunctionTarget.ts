import { importPeer, type OperatorClients } from './operatorClients.js';

/**
 * What a deployed consumer function tells an operator: its environment (the `INBOX_*`
 * contract) and the queues its event source mappings read.
 *
 * @example
 * ```ts
 * const { environment, sourceQueueArns } = await lambdaFunctionTarget(clients, 'ledger-fn');
 * ```
 */
export interface LambdaFunctionTarget {
  readonly functionName: string;
  readonly environment: Readonly<Record<string, string>>;
  readonly sourceQueueArns: readonly string[];
}

/**
 * Reads a function's configuration and its SQS event source mappings
 * (`lambda:GetFunctionConfiguration`, `lambda:ListEventSourceMappings`), with the optional peer
 * `@aws-sdk/client-lambda` imported on first use.
 *
 * @example
 * ```ts
 * const target = await lambdaFunctionTarget(operatorClients({}), 'ledger-consumer');
 * ```
 */
export async function lambdaFunctionTarget(
  clients: OperatorClients,
  functionName: string,
): Promise<LambdaFunctionTarget> {
  const lambda = await importLambda();
  const client = new lambda.LambdaClient(clients.config);
  try {
    const configuration = await client.send(
      new lambda.GetFunctionConfigurationCommand({ FunctionName: functionName }),
    );
    const sourceQueueArns: string[] = [];
    let marker: string | undefined;
    do {
      const page = await client.send(
        new lambda.ListEventSourceMappingsCommand({ FunctionName: functionName, Marker: marker }),
      );
      for (const mapping of page.EventSourceMappings ?? []) {
        if (/^arn:[^:]+:sqs:/.test(mapping.EventSourceArn ?? '') && mapping.EventSourceArn)
          sourceQueueArns.push(mapping.EventSourceArn);
      }
      marker = page.NextMarker;
    } while (marker);
    return {
      functionName: configuration.FunctionName ?? functionName,
      environment: configuration.Environment?.Variables ?? {},
      sourceQueueArns,
    };
  } finally {
    client.destroy();
  }
}

function importLambda() {
  return importPeer(() => import('@aws-sdk/client-lambda'), '@aws-sdk/client-lambda', '--function');
}
