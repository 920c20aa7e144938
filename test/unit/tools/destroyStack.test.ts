import { describe, expect, it } from 'vitest';
import { cloudFormationBusy, liveResourceIds } from '../../../tools/verify/destroyStack.js';

describe("the destroy's list of a stack's resources", () => {
  it('leaves out a bucket a rolled-back deploy already deleted (DELETE_COMPLETE), so that emptying it cannot fail on NoSuchBucket', () => {
    const resources = [
      {
        ResourceType: 'AWS::S3::Bucket',
        ResourceStatus: 'DELETE_COMPLETE' as const,
        PhysicalResourceId: 'rolled-back-bucket',
      },
      {
        ResourceType: 'AWS::S3::Bucket',
        ResourceStatus: 'CREATE_COMPLETE' as const,
        PhysicalResourceId: 'live-bucket',
      },
      {
        ResourceType: 'AWS::Logs::LogGroup',
        ResourceStatus: 'CREATE_COMPLETE' as const,
        PhysicalResourceId: 'log-group',
      },
      { ResourceType: 'AWS::S3::Bucket', ResourceStatus: 'CREATE_FAILED' as const },
    ];

    expect(liveResourceIds(resources, 'AWS::S3::Bucket')).toEqual(['live-bucket']);
  });
});

describe('waiting for CloudFormation before the destroy', () => {
  it('waits while the stack is being created, updated or rolled back', () => {
    for (const status of ['CREATE_IN_PROGRESS', 'ROLLBACK_IN_PROGRESS', 'UPDATE_IN_PROGRESS'])
      expect(cloudFormationBusy(status)).toBe(true);
  });

  it('does not wait on REVIEW_IN_PROGRESS (a cdk deploy stopped before its change set ran: it never leaves that state), nor on a settled or absent stack', () => {
    for (const status of ['REVIEW_IN_PROGRESS', 'CREATE_COMPLETE', 'ROLLBACK_COMPLETE', undefined])
      expect(cloudFormationBusy(status)).toBe(false);
  });
});
